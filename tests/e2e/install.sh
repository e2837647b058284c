#!/bin/bash
# make install (scripts/install.sh) into a staging root, then used as installed:
#  - every program, library, the header, the pkg-config file and the man pages land
#    under PREFIX's bin, lib, include, lib/pkgconfig, share/man;
#  - the installed collect finds its collector libraries (<bindir>/../lib) and the
#    installed er_print reads the experiment;
#  - a program built with the installed pkg-config file (PKG_CONFIG_SYSROOT_DIR)
#    links against the installed libcollectorAPI and its named sample shows;
#  - uninstall removes every file install put there; a relative PREFIX is refused.
. "$(dirname "$0")/e2e_lib.sh" install
build=$(cd "$PA_BIN/.." && pwd)
stage=$W/stage root=$W/stage/opt/pa

bash "$PA_TOP/scripts/install.sh" "$build" /opt/pa "$stage" >inst.out 2>&1 || { bad "install"; cat inst.out; }
for f in bin/collect bin/er_print bin/er_archive bin/er_rm bin/er_mv bin/er_cp bin/analyzer \
	lib/libcollector.so lib/libcollector-heap.so lib/libcollector-sync.so lib/libcollector-io.so \
	lib/libcollectorAPI.so lib/libcollectorAPI.a lib/pkgconfig/collectorAPI.pc include/collectorAPI.h \
	share/man/man1/collect.1 share/man/man1/er_print.1 share/man/man3/collectorAPI.3; do
	check "installed $f" test -s "$root/$f"
done
check "the pkg-config file names PREFIX /opt/pa" grep -qx 'prefix=/opt/pa' "$root/lib/pkgconfig/collectorAPI.pc"

# the installed tools, as a user would run them
export PKG_CONFIG_LIBDIR=$root/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$stage
# shellcheck disable=SC2046
cc -O1 -g -fno-inline $(pkg-config --cflags collectorAPI) "$PA_TOP/tests/fixtures/api_phases.c" -o phases \
	$(pkg-config --libs collectorAPI) -Wl,-rpath,"$root/lib" || bad "build with the installed pkg-config file"
check "phases links the installed libcollectorAPI.so" eval "ldd ./phases | grep -q '$root/lib/libcollectorAPI.so'"
env -u PA_COLLECTOR_LIB "$root/bin/collect" -S off -o p.er ./phases 0.1 >p.out 2>p.err || { bad "installed collect"; cat p.err; }
check "the program ran under the installed collect" grep -qx "done" p.out
"$root/bin/er_print" -sample_list p.er >list.txt 2>&1
check "the installed er_print shows the named sample after_b" grep -q -- '-> after_b' list.txt
"$root/bin/er_print" -functions p.er >fn.txt 2>&1
check "the installed er_print lists phase_c" grep -q 'phase_c' fn.txt

bash "$PA_TOP/scripts/install.sh" --uninstall "$build" /opt/pa "$stage" >un.out 2>&1 || bad "uninstall"
left=$(find "$stage" -type f | wc -l)
check "uninstall removes every installed file (left: $left)" test "$left" = 0
bash "$PA_TOP/scripts/install.sh" "$build" opt/pa "$stage" >rel.out 2>&1
check "a relative PREFIX is refused with one message" grep -q 'PREFIX must be an absolute path' rel.out

e2e_end
