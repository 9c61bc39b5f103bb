#!/bin/sh
# Runs each cmocka unit-test binary given as an argument; prints one summary
# line `unit: N passed, N failed` (cmocka prints its own lines per group).
pass=0 fail=0
for t in "$@"; do
	out=$("$t" 2>&1); rc=$?
	printf '%s\n' "$out" | grep -E '^\[  (FAILED|  OK  ) \]|PASSED|FAILED' | sed "s|^|$(basename "$t"): |"
	p=$(printf '%s\n' "$out" | grep -c '^\[       OK \]')
	f=$(printf '%s\n' "$out" | grep -c '^\[  FAILED  \]')
	pass=$((pass + p))
	fail=$((fail + f))
	if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
		# a crash or an abort before cmocka could report
		printf '%s\n' "$out" | tail -5
		fail=$((fail + 1))
	fi
done
echo "unit: $pass passed, $fail failed"
[ $fail -eq 0 ]
