#!/usr/bin/env bash
# The manual's rules for calls between shared objects, on synthetic stacks:
#  - a leaf PC inside a PLT stub is dropped: its time goes to the caller (the
#    call instruction), and no PLT function appears;
#  - leaf frames in the dynamic loader that end in its lazy-binding resolver
#    (_dl_runtime_resolve*) become one "@plt (<object>)" pseudo-function of
#    the calling object, with the time as its exclusive metric;
#  - loader frames that are not lazy binding stay what they are.
. "$(dirname "$0")/common.bash"
cd "$WORK" || exit 1
printf '#include <stdio.h>\nint main(void) { puts("x"); return 0; }\n' >p.c
cc -O0 -g p.c -o pltprog || exit 1
plt=$(readelf -SW pltprog | awk '$2 == ".plt" { print "0x" $4; exit }')
[[ -n $plt ]] || { echo "no .plt in the fixture"; exit 1; }
ldso=$(readlink -f /lib64/ld-linux-x86-64.so.2)
entry=$(printf '0x%x' $((plt + 20)))
cat >s.txt <<EOS
object $ldso
object pltprog
thread 1
sample 1 10 10000000 @$entry main+20
sample 1 30 10000000 _dl_fixup+10 _dl_runtime_resolve_xsavec+60 main+20
sample 1 5 10000000 _dl_fixup+10 main+20
end 1 450000000
EOS
if ! "$MKEXP" x.er <s.txt 2>mk.err; then
	grep -q "_dl_runtime_resolve_xsavec\|_dl_fixup" mk.err && { echo "ld.so has no symbols here (libc6-dbg missing): skipped"; exit 77; }
	cat mk.err; exit 1
fi
"$ER_PRINT" -functions x.er >f 2>&1
"$ER_PRINT" -csingle main x.er >c 2>&1
has() { if grep -qF -- "$3" "$2"; then pass "$1"; else fail "$1: no '$3' in:"; cat "$2"; fi; }
hasnt() { if grep -qF -- "$3" "$2"; then fail "$1: unexpected '$3'"; cat "$2"; else pass "$1"; fi; }
has "PLT leaf: main gets the 0.1 s exclusively" f "0.100  22.22  0.450 100.00   main"
has "lazy binding: @plt (<pltprog>) has 0.3 s exclusive" f "0.300  66.67  0.300  66.67   @plt (<pltprog>)"
hasnt "the resolver's own frames are folded into @plt" f "_dl_runtime_resolve"
has "a loader frame outside lazy binding stays" f "_dl_fixup"
has "@plt is main's callee" c "0.300  66.67   @plt (<pltprog>)"
finish
