#!/usr/bin/env bash
# map.xml and stacks:
#  - map.xml is well-formed and has the executable (kind exe, its real path,
#    a build-id), libc (kind lib, build-id, an r-x segment) and the vDSO
#    (kind vdso, path vdso.so, dumped as an ELF file into the experiment);
#  - dlopen/dlclose append a <load> and an <unload> with the same id;
#  - dlopen of a bare name found only through the CALLER's DT_RUNPATH still
#    works under the collector (glibc takes the caller from the return
#    address, which the interposer would otherwise hide);
#  - every clock sample's stack id has a stack record; leaf PCs of col_spin
#    fall in the executable's text or the vDSO/libc (clock_gettime); with
#    d=2 no stack is longer than 2 frames and those cut are flagged truncated.
source "$(dirname "$0")/collector_lib.sh"
col_setup
col_cc spin
col_cc dlopen -ldl

exp=$COL_TMP/spin.er
col_run "$exp" "p=997" "$COL_TMP/spin" 1 2>/dev/null
((COL_RC == 0)) || col_fail "col_spin exited $COL_RC"
col_check_clean "$exp"
col_xml_ok "$exp/map.xml"
head -c 4 "$exp/vdso.so" | grep -q 'ELF' || col_fail "vdso.so is not an ELF image"
python3 - "$exp" "$COL_TMP/spin" <<'PY' || col_fail "map/stack checks"
import sys, re, xml.dom.minidom as m
exp, exe = sys.argv[1], sys.argv[2]
loads = m.parse(exp + "/map.xml").getElementsByTagName("load")
kinds = {}
text = []  # (lo, hi, kind, path) of executable segments
for l in loads:
    k, p = l.getAttribute("kind"), l.getAttribute("path")
    kinds.setdefault(k, []).append(l)
    for s in l.getElementsByTagName("segment"):
        if "x" in s.getAttribute("prot"):
            lo = int(s.getAttribute("vaddr"), 16)
            text.append((lo, lo + int(s.getAttribute("memsz")), k, p))
assert len(kinds.get("exe", [])) == 1, "want one exe"
e = kinds["exe"][0]
assert e.getAttribute("path") == exe, e.getAttribute("path")
assert re.fullmatch("[0-9a-f]{40}", e.getAttribute("build_id")), "exe build-id"
assert any("libc.so" in l.getAttribute("path") and l.getAttribute("build_id") for l in kinds["lib"]), "libc"
assert [l.getAttribute("path") for l in kinds.get("vdso", [])] == ["vdso.so"], "vdso"
ids = [l.getAttribute("id") for l in loads]
assert len(set(ids)) == len(ids), "duplicate ids"
stacks, clocks = {}, []
for line in open(exp + ".dump"):
    f = dict(kv.split("=", 1) for kv in line.split()[1:] if "=" in kv)
    if line.startswith("stack "):
        stacks[f["id"]] = [int(x, 16) for x in f["pcs"].split(",")]
    elif line.startswith("clock "):
        clocks.append(f["stack"])
missing = [c for c in clocks if c not in stacks]
assert not missing, "%d samples without a stack record" % len(missing)
def where(pc):
    for lo, hi, k, p in text:
        if lo <= pc < hi:
            return k if k != "lib" else p
    return None
leaf = {}
for c in clocks:
    w = where(stacks[c][0])
    leaf[w] = leaf.get(w, 0) + 1
print("# %d samples, %d distinct stacks; leaf PCs by object: %s" % (len(clocks), len(stacks), leaf))
# col_spin's time is leaf() and the clock_gettime system call it makes between
# calls (the sampler counts system time too, charged to the vDSO's syscall site)
exe, vdso = leaf.get("exe", 0), leaf.get("vdso", 0)
assert exe >= 0.25 * len(clocks), "leaf PCs mostly outside the executable"
assert exe + vdso >= 0.9 * len(clocks), "leaf PCs outside the executable and the vDSO"
assert sum(v for k, v in leaf.items() if k is None) == 0, "leaf PC outside every text segment"
PY

exp=$COL_TMP/depth.er
col_run "$exp" "p=997;d=2" "$COL_TMP/spin" 0.3 2>/dev/null
col_check_clean "$exp"
awk '/^stack / { split($4, a, "="); split($3, f, "=");
	if (a[2] > 2) { print "stack longer than d=2: " $0; bad = 1 }
	if (a[2] == 2 && f[2] % 2 != 1) { print "cut stack not flagged: " $0; bad = 1 } }
	END { exit bad }' "$exp.dump" || col_fail "depth limit"
grep -q '^stack .* flags=1 n=2 ' "$exp.dump" || col_fail "no truncated stack at d=2"

exp=$COL_TMP/dl.er
col_run "$exp" "p=997" "$COL_TMP/dlopen" libm.so.6 cos
((COL_RC == 0)) || col_fail "col_dlopen exited $COL_RC"
col_xml_ok "$exp/map.xml"
id=$(sed -n 's/.*<load id="\([0-9]*\)".*path="[^"]*libm.so.6".*/\1/p' "$exp/map.xml")
[[ -n $id ]] || col_fail "no <load> for libm after dlopen"
grep -q "<unload id=\"$id\" " "$exp/map.xml" || col_fail "no <unload id=\"$id\"> after dlclose"
col_note "dlopen: libm load id=$id, unloaded"

mkdir -p "$COL_TMP/plug"
printf 'double cos(double x) { (void)x; return 1.0; }\n' >"$COL_TMP/plug/p.c"
gcc -shared -fPIC -o "$COL_TMP/plug/libcolplug.so" "$COL_TMP/plug/p.c" || col_fail "cannot build plugin"
gcc -O1 -g -o "$COL_TMP/dlrunpath" "$PA_TOP/tests/fixtures/col_dlopen.c" -ldl -Wl,--enable-new-dtags,-rpath,"$COL_TMP/plug"
"$COL_TMP/dlrunpath" libcolplug.so cos || col_fail "the RUNPATH fixture fails even without the collector"
exp=$COL_TMP/runpath.er
col_run "$exp" "p=997" "$COL_TMP/dlrunpath" libcolplug.so cos
((COL_RC == 0)) || col_fail "dlopen through the caller's RUNPATH failed under the collector ($COL_RC)"
grep -q "path=\"$COL_TMP/plug/libcolplug.so\"" "$exp/map.xml" || col_fail "no <load> for the plugin"
LD_PRELOAD=$COL_SO "$COL_TMP/dlrunpath" libcolplug.so cos || col_fail "RUNPATH dlopen fails with a dormant collector"
col_note "dlopen by bare name through the caller's RUNPATH: ok (collecting and dormant)"
echo "PASS collector_maps_stacks"
