#!/bin/bash
# install.sh BUILD PREFIX [DESTDIR] - install a built tree (make install, make uninstall).
#   scripts/install.sh build /usr/local            the programs, libraries, header,
#                                                  pkg-config file and man pages
#   scripts/install.sh build /usr/local /tmp/stage the same under a staging root
#   scripts/install.sh --uninstall build /usr/local [DESTDIR]   remove what install puts
# Layout: PREFIX/bin (collect, er_print, er_archive, er_rm, er_mv, er_cp, analyzer),
# PREFIX/lib (libcollector*.so, which collect finds as <bindir>/../lib, and
# libcollectorAPI.so/.a), PREFIX/lib/pkgconfig/collectorAPI.pc (naming PREFIX),
# PREFIX/include/collectorAPI.h, PREFIX/share/man/man1 and man3.
set -euo pipefail
uninstall=0
if [ "${1:-}" = --uninstall ]; then
	uninstall=1
	shift
fi
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
	echo "usage: install.sh [--uninstall] BUILD PREFIX [DESTDIR]" >&2
	exit 2
fi
build=$1 prefix=$2 dest=${3:-}
case $prefix in
/*) ;;
*)
	echo "install.sh: PREFIX must be an absolute path (got '$prefix')" >&2
	exit 2
	;;
esac
top=$(cd "$(dirname "$0")/.." && pwd)
root=$dest$prefix

bins="collect er_print er_archive er_rm er_mv er_cp analyzer"
libs="libcollector.so libcollector-heap.so libcollector-sync.so libcollector-io.so libcollectorAPI.so libcollectorAPI.a"
man1="collect.1 er_print.1 er_archive.1 er_rm.1 er_mv.1 er_cp.1 analyzer.1"
man3="collectorAPI.3"

if [ $uninstall = 1 ]; then
	for f in $bins; do rm -f "$root/bin/$f"; done
	for f in $libs; do rm -f "$root/lib/$f"; done
	rm -f "$root/lib/pkgconfig/collectorAPI.pc" "$root/include/collectorAPI.h"
	for f in $man1; do rm -f "$root/share/man/man1/$f"; done
	for f in $man3; do rm -f "$root/share/man/man3/$f"; done
	echo "removed the Performance Analyzer from $root"
	exit 0
fi

for f in $bins; do
	[ -x "$build/bin/$f" ] || {
		echo "install.sh: $build/bin/$f is missing: run make first" >&2
		exit 1
	}
done
install -d "$root/bin" "$root/lib/pkgconfig" "$root/include" "$root/share/man/man1" "$root/share/man/man3"
for f in $bins; do install -m 755 "$build/bin/$f" "$root/bin/$f"; done
for f in $libs; do
	case $f in
	*.a) install -m 644 "$build/lib/$f" "$root/lib/$f" ;;
	*) install -m 755 "$build/lib/$f" "$root/lib/$f" ;;
	esac
done
install -m 644 "$top/collector/api/collectorAPI.h" "$root/include/collectorAPI.h"
version=$(sed -n 's/^Version: //p' "$build/lib/pkgconfig/collectorAPI.pc")
sed -e "s|@PREFIX@|$prefix|" -e "s|@VERSION@|$version|" "$top/collector/api/collectorAPI.pc.in" \
	>"$root/lib/pkgconfig/collectorAPI.pc"
chmod 644 "$root/lib/pkgconfig/collectorAPI.pc"
for f in $man1; do install -m 644 "$top/docs/man/$f" "$root/share/man/man1/$f"; done
for f in $man3; do install -m 644 "$top/docs/man/$f" "$root/share/man/man3/$f"; done
echo "installed the Performance Analyzer in $root"
