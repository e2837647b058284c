#!/usr/bin/env bash
# Temporary allocations are blocks freed by the next releasing heap call of
# their thread with no other allocation in between: the block itself, by
# address (analysis/profile_heap.h).  heaptrack (file format 1 and later)
# compares the freed block's size and stack with the last allocation's
# instead, so freeing an *older* block of the same size and stack right
# after allocating a new one (grow-by-copy, e.g. sqlite3VdbeMemGrow) counts
# as temporary there and not here: at that sqlite3 call site heaptrack
# counted 73,638 temporaries and we 12,690 of the same 73,872 allocations.
# tests/fixtures/heap_temp.c has both patterns; this test asserts ours and,
# where heaptrack is installed, shows its count of the second.
. "$(dirname "$0")/e2e_lib.sh" heaptemp
cc -O0 -fno-builtin -g "$PA_TOP/tests/fixtures/heap_temp.c" -o heap_temp || exit 1
N=1000
"$PA_BIN/collect" -H on -o t.er ./heap_temp $N >out 2>err || { bad "collect"; cat err; exit 1; }
"$PA_BIN/er_print" -heapstat t.er >hs 2>&1 || { bad "er_print -heapstat"; cat hs; exit 1; }
# the Temporary #k blocks: "Instances = N" then the stack, leaf first
awk '/^Temporary #/ { n = $0; sub(/.*Instances = /, "", n); sub(/,.*/, "", n); getline; print $1, n }' hs >temps
got=$(awk '$1 == "scratch" { print $2 }' temps)
[[ $got == "$N" ]] && ok "scratch: $got temporaries of $N (freed right after allocation)" ||
	bad "scratch: '${got:-none}' temporaries, want $N"
if grep -q '^grow_block ' temps; then
	bad "grow_block: $(awk '$1 == "grow_block" { print $2 }' temps) temporaries, want none (an older block is freed)"
else
	ok "grow_block: no temporaries (each free releases an older block)"
fi
all=$(awk '/^Temporary allocations/ { print $3 }' hs)
((all >= N && all < N + 20)) && ok "total temporaries $all (the program's $N and libc's few)" ||
	bad "total temporaries '${all:-none}', want $N plus a few"
if command -v heaptrack >/dev/null && command -v heaptrack_print >/dev/null; then
	heaptrack -o ht ./heap_temp $N >/dev/null 2>&1
	f=$(ls ht*.zst ht*.gz 2>/dev/null | head -1)
	if [[ -n $f ]]; then
		h=$(heaptrack_print "$f" 2>/dev/null | awk '/^MOST TEMPORARY/ { on = 1 } on && /temporary allocations of/ { n = $1; getline; if ($1 == "grow_block") { print n; exit } }')
		echo "note: heaptrack counts ${h:-no} temporaries at grow_block, where we count none"
	fi
fi
e2e_end
