#!/usr/bin/env bash
# layers-check.sh - check the layer rule (docs/architecture.md, "Layers") and the collector's exported names.
#
#   scripts/layers-check.sh [-C TOP] [BUILD_DIR]     (BUILD_DIR defaults to "build", relative
#                                                    to TOP unless absolute)
#
# 1. Includes: dependencies point one way,
#        common <- experiment <- {collector, collect, analysis},  analysis <- {er_print, er_archive, analyzer},
#        experiment <- er_manage (er_rm, er_mv, er_cp: they move whole directories, they read no data)
#    so a file may include project headers only from these directories:
#        common/      common
#        experiment/  common experiment
#        collector/   common experiment collector
#        collect/     common experiment collect
#        analysis/    common experiment analysis
#        er_print/    common experiment analysis er_print
#        er_archive/  common experiment analysis er_archive
#        analyzer/    common experiment analysis analyzer
#        er_manage/   common experiment er_manage
#        demo/        nothing of the project (it is a stand-alone target program)
#        tests/ bench/  anything
#    An include "x/y.h" is resolved like the compiler does (next to the including file, then
#    from TOP, which is on the -I path); its layer is its first path component.
# 1b. A front end of libanalysis (er_print/, er_archive/, analyzer/) includes none of its
#    private headers (analysis/*_internal.h, analysis/exp_read.h).
# 2. elfutils headers (<libelf.h>, <gelf.h>, <nlist.h>, <dwarf.h>, <libdw.h>, <libdwfl.h>,
#    <elfutils/...>) only in analysis/symtab*.c (and its internal symtab_elf.h) and
#    analysis/lines*.c (and its internal lines_internal.h)
#    (the symbolizer); tests/ and bench/ are exempt.
# 3. No cycle among a directory's modules (a module is X.c with X.h and X_internal.h; X
#    depends on Y when one of X's files includes that directory's Y.h or Y_internal.h),
#    in ACYCLIC's directories (collector/'s subfolders each apart): each module can be
#    read, tested and replaced from the bottom up (collector/state.h is the collector's
#    bottom, collector.c its top; analysis/exp_open.c is the top of the experiment's
#    modules, profile.c of the profile's, whose metric modules it reaches through a table).
# 4. For each preloaded library of the collector that BUILD_DIR/lib holds (libcollector.so,
#    and libcollector-heap, -sync, -io.so, each from its folder collector/heap, sync, io):
#    `nm -D --defined-only` shows only names listed in the global: part of its version
#    script (collector/libcollector.map, collector/heap/libcollector-heap.map, ...;
#    wildcards allowed there), and it has no strong undefined name without a glibc
#    version (one the link left unresolved).
# 5. No file includes a .c file (tests/ and bench/ included): a test links the module it tests
#    from the program's internal library (the Makefile's libcollector-core.a, libcollect.a,
#    liberprint.a, liberarchive.a, libermanage.a), so it sees only the module's header.
#
# Prints one line per violation and exits 1 if there is any; 2 on a usage or setup error.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
if [[ ${1:-} == -C ]]; then
	[[ $# -ge 2 ]] || { echo "usage: $0 [-C TOP] [BUILD_DIR]" >&2; exit 2; }
	top=$(cd "$2" && pwd -P)
	shift 2
fi
build=${1:-build}
[[ $build == /* ]] || build=$top/$build

die() { printf 'layers-check: error: %s\n' "$*" >&2; exit 2; }

declare -A ALLOWED=(
	[common]="common"
	[experiment]="common experiment"
	[collector]="common experiment collector"
	[collect]="common experiment collect"
	[analysis]="common experiment analysis"
	[er_print]="common experiment analysis er_print"
	[er_archive]="common experiment analysis er_archive"
	[analyzer]="common experiment analysis analyzer"
	[er_manage]="common experiment er_manage"
	[demo]=""
	[tests]="*"
	[bench]="*"
)
LAYERS=(common experiment collector collect analysis er_print er_archive analyzer er_manage demo tests bench)

violations=0
violation() { printf '%s\n' "$*"; violations=$((violations + 1)); }

list_sources() {
	if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1 &&
		[[ $(git -C "$top" rev-parse --show-toplevel) == "$top" ]]; then
		git -C "$top" ls-files --cached --others --exclude-standard -- "${LAYERS[@]}" |
			grep -E '\.(c|h|inc)$' | sort -u
	else
		(cd "$top" && find "${LAYERS[@]}" -type f \( -name '*.c' -o -name '*.h' -o -name '*.inc' \) \
			2>/dev/null | sort)
	fi
}

# Normalise a relative path: drop "." and resolve "..".
normpath() {
	local IFS=/ part out=()
	for part in $1; do
		case $part in
		'' | .) ;;
		..) ((${#out[@]})) && unset 'out[${#out[@]}-1]' ;;
		*) out+=("$part") ;;
		esac
	done
	printf '%s\n' "${out[*]}"
}

is_elfutils() {
	case $1 in
	libelf.h | gelf.h | nlist.h | dwarf.h | libdw.h | libdwfl.h | libdwelf.h | elfutils/*) return 0 ;;
	esac
	return 1
}

may_use_elfutils() {
	case $1 in
	analysis/symtab*.c | analysis/symtab_elf.h | analysis/lines*.c | analysis/lines_internal.h | tests/* | bench/*) return 0 ;;
	esac
	return 1
}

# The front ends of libanalysis, which may use only its public headers (experiment.h's
# accessors, profile.h, the report models), not what is behind them.
is_front_end() {
	case $1 in
	er_print | er_archive | analyzer) return 0 ;;
	esac
	return 1
}

is_analysis_private() {
	case $1 in
	analysis/*_internal.h | analysis/exp_read.h) return 0 ;;
	esac
	return 1
}

while IFS= read -r f; do
	[[ -f $top/$f ]] || continue
	layer=${f%%/*}
	dir=$(dirname "$f")
	allowed=${ALLOWED[$layer]-}
	while IFS= read -r hit; do
		line=${hit%%:*}
		text=${hit#*:}
		if [[ $text =~ ^[[:space:]]*#[[:space:]]*include[[:space:]]*([\"\<])([^\"\>]+)[\"\>] ]]; then
			delim=${BASH_REMATCH[1]} inc=${BASH_REMATCH[2]}
		else
			continue
		fi
		if [[ $inc == *.c ]]; then
			violation "$f:$line: includes the source file $inc; link its library and include its header"
		fi
		if [[ $delim == '<' ]] && is_elfutils "$inc" && ! may_use_elfutils "$f"; then
			violation "$f:$line: includes elfutils header <$inc>; only analysis/symtab*.c, analysis/lines*.c may"
		fi
		# Which project file does it name?
		target=
		if [[ $delim == '"' && -f $top/$dir/$inc ]]; then
			target=$(normpath "$dir/$inc")
		elif [[ -f $top/$inc ]]; then
			target=$(normpath "$inc")
		elif [[ $delim == '"' ]]; then
			target=$(normpath "$inc") # not written yet: judge by its first component
		fi
		[[ -n $target ]] || continue
		tl=${target%%/*}
		[[ $target == */* && -v "ALLOWED[$tl]" ]] || continue
		[[ $allowed == "*" ]] && continue
		if [[ " $allowed " != *" $tl "* ]]; then
			violation "$f:$line: includes \"$target\": $layer/ may include only: ${allowed:-nothing of the project}"
		fi
		if is_front_end "$layer" && is_analysis_private "$target"; then
			violation "$f:$line: includes \"$target\", libanalysis's own: a front end uses only its public headers"
		fi
	done < <(grep -nE '^[[:space:]]*#[[:space:]]*include' "$top/$f" || true)
done < <(list_sources)

# ---- no include cycle among a directory's modules
ACYCLIC=(common experiment collector collector/heap collector/sync collector/io collector/api collect analysis
	er_print er_archive er_manage)
for d in "${ACYCLIC[@]}"; do
	[[ -d $top/$d ]] || continue
	edges=$(
		while IFS= read -r f; do
			[[ $f == "$d"/* && $f != "$d"/*/* && -f $top/$f ]] || continue
			m=$(basename "$f")
			m=${m%.*}
			m=${m%_internal} # X_internal.h is module X's private header
			printf '%s %s\n' "$m" "$m"
			sed -nE 's@^[[:space:]]*#[[:space:]]*include[[:space:]]*"'"$d"'/([^"/]+)\.h".*@\1@p' "$top/$f" |
				while IFS= read -r y; do
					y=${y%_internal}
					[[ $y != "$m" ]] && printf '%s %s\n' "$m" "$y"
				done
		done < <(list_sources)
	)
	loop=$(printf '%s\n' "$edges" | tsort 2>&1 >/dev/null | grep -v 'input contains a loop' | sed 's/^tsort: //' | awk '!seen[$0]++' | tr '\n' ' ' || true)
	if [[ -n ${loop// /} ]]; then
		violation "$d/: its modules include each other in a cycle: ${loop% }"
	fi
done

# ---- exported names of the collector's preloaded libraries
# check_exports SO MAP: SO exports only MAP's global: names and needs no unresolved name.
check_exports() {
	local so=$1 map=$2 name type _addr g ok nm_out
	command -v nm >/dev/null 2>&1 || die "nm not found; run 'make deps'"
	[[ -f $map ]] || die "$map is missing"
	# global: names of every version node, comments stripped, wildcards kept.
	local -a globals
	mapfile -t globals < <(
		sed -e 's://.*$::' "$map" | tr '\n' ' ' | sed -e 's:/\*[^*]*\*\+\([^/*][^*]*\*\+\)*/: :g' |
			sed -e 's/[{};]/ & /g' | awk '
			{
				for (i = 1; i <= NF; i++) {
					if ($i == "global:") g = 1
					else if ($i == "local:" || $i == "}" || $i ~ /:$/) g = 0
					else if (g && $i != ";" && $i != "{") print $i
				}
			}'
	)
	((${#globals[@]})) || violation "$map: no global: names found"
	nm_out=$(nm -D --defined-only "$so") || die "nm -D failed on $so"
	while read -r _addr type name; do
		[[ -n ${name:-} ]] || continue
		[[ $type == A ]] && continue # version node names
		name=${name%%@*}
		ok=0
		for g in "${globals[@]}"; do
			# shellcheck disable=SC2053  # the map's names may be glob patterns
			if [[ $name == $g ]]; then ok=1; break; fi
		done
		((ok)) || violation "$so: exports \"$name\" ($type), which is not in the global: list of ${map#"$top"/}"
	done <<<"$nm_out"
	# A strong undefined name without a glibc version is one the link left unresolved: the
	# target would die with "symbol lookup error" when the collector is preloaded.
	nm_out=$(nm -D --undefined-only "$so") || die "nm -D failed on $so"
	while read -r type name; do
		[[ $type == U && $name != *@* ]] || continue
		violation "$so: needs \"$name\", which no library it links provides (missing object in the link?)"
	done <<<"$nm_out"
}

for lib in libcollector:libcollector libcollector-heap:heap/libcollector-heap \
	libcollector-sync:sync/libcollector-sync libcollector-io:io/libcollector-io; do
	so=$build/lib/${lib%%:*}.so
	[[ -f $so ]] && check_exports "$so" "$top/collector/${lib#*:}.map"
done

if ((violations)); then
	printf 'layers-check: %d violation(s)\n' "$violations"
	exit 1
fi
printf 'layers-check: ok\n'
