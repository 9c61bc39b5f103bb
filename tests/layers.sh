#!/bin/sh
# The layers of src/ (docs/design.md): each folder may include only the
# folders below it.  A wrong edge fails `make check`, so that the layering
# in the design document stays true; so does a file over its size (below).
#
#   tests/layers.sh [SRC]        prints `layers: N passed, N failed`
cd "${1:-$(dirname "$0")/../src}" || exit 2

# folder: the folders its files may include (besides itself and ftr.h)
allowed() {
	case $1 in
	cmd)    echo "lang lang/run lang/plan lang/check lang/parse lang/maps kernel profile filter perf report" ;;
	# lang/: the language's rooms in the order of a program's life (its
	# README): maps, then parse, check, plan, run.  A room may include the
	# rooms before it and lang/'s own headers (lang.h, the tree; interp.h,
	# what commands see; interp-int.h, the interpreter's state the rooms
	# share), never a room after it.
	lang)   echo "lang/run lang/plan lang/check lang/parse lang/maps kernel filter perf report" ;;
	lang/maps)  echo "lang report" ;;
	lang/parse) echo "lang lang/maps kernel" ;;
	lang/check) echo "lang lang/parse lang/maps kernel" ;;
	lang/plan)  echo "lang lang/check lang/parse lang/maps kernel filter perf report" ;;
	lang/run)   echo "lang lang/plan lang/check lang/parse lang/maps kernel filter perf report" ;;
	kernel) echo "filter perf report" ;;
	profile) echo "perf report" ;;
	filter) echo "report" ;;
	perf)   echo "report" ;;
	report) echo "" ;;
	.)      echo "cmd lang kernel profile filter perf report" ;;
	*)      echo "?" ;;
	esac
}

pass=0 fail=0
for f in *.c *.h */*.c */*.h */*/*.c */*/*.h; do
	[ -e "$f" ] || continue
	dir=$(dirname "$f")
	ok=$(allowed "$dir")
	if [ "$ok" = "?" ]; then
		echo "not ok layers: $f is in '$dir', a folder docs/design.md does not name"
		fail=$((fail + 1))
		continue
	fi
	bad=""
	# the folder of each include: "lang/plan/x.h" is lang/plan, "ftr.h" none
	for inc in $(sed -n 's/^#include "\(\([a-z]*\/\)*\)[^"/]*".*/\1/p' "$f" | sed 's/\/$//' | sort -u); do
		[ "$inc" = "$dir" ] && continue
		case " $ok " in *" $inc "*) ;; *) bad="$bad $inc/" ;; esac
	done
	if [ -n "$bad" ]; then
		echo "not ok layers: $f ($dir/) includes$bad, a layer above it or beside it"
		fail=$((fail + 1))
	else
		pass=$((pass + 1))
	fi
done
# A folder's private header (NAME-int.h: lang/interp-int.h, the rooms of the
# interpreter) is included only inside its folder.
for f in */*-int.h */*/*-int.h; do
	[ -e "$f" ] || continue
	dir=$(dirname "$f")
	users=$(echo $(grep -l "^#include \"$f\"" *.c *.h */*.c */*.h 2>/dev/null | grep -v "^$dir/"))
	if [ -n "$users" ]; then
		echo "not ok layers: $f is private to $dir/ and included by $users"
		fail=$((fail + 1))
	else
		pass=$((pass + 1))
	fi
done
# Sizes (issue 25): no source file over 2,000 lines, no command over 700;
# past that a file is split along a seam (src/lang/README.md).
for f in *.c */*.c */*/*.c; do
	[ -e "$f" ] || continue
	case $f in cmd/*) max=700 ;; *) max=2000 ;; esac
	n=$(wc -l <"$f")
	if [ "$n" -gt "$max" ]; then
		echo "not ok layers: $f has $n lines, over $max: split it along a seam"
		fail=$((fail + 1))
	else
		pass=$((pass + 1))
	fi
done
# No loop of calls between the commands (issue 33): a cmd/ file may call
# functions of cmd.c and of the files below cmd/, and of another command's
# file only where that file calls nothing back, directly or around a loop
# (tsort finds one).  Defined functions: non-static names at column 0.
edges=$(for f in cmd/*.c; do
	for g in cmd/*.c; do
		[ "$f" = "$g" ] && continue
		for fn in $(sed -n 's/^[a-z][a-z_0-9 ]* \**\([a-z_][a-z_0-9]*\)(.*/\1/p' "$g" | sort -u); do
			grep -q "^static .*[ *]$fn(" "$g" && continue
			if grep -q "[^a-z_0-9]$fn(" "$f"; then echo "$f $g"; break; fi
		done
	done
done)
if loop=$(echo "$edges" | tsort 2>&1 >/dev/null | grep -v '^tsort: -: input contains a loop:$' | sed 's/^tsort: //') && [ -n "$loop" ]; then
	echo "not ok layers: cmd/ files call each other around a loop:" $loop
	fail=$((fail + 1))
else
	pass=$((pass + 1))
fi
echo "layers: $pass passed, $fail failed"
[ $fail -eq 0 ]
