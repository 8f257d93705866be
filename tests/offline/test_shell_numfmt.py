"""numfmt compared with GNU coreutils on the host (units, rounding, padding, fields, errors)."""

from __future__ import annotations

import pytest
from host_bash import both

SAME_AS_GNU = [
    "numfmt --to=si 1500000; numfmt --to=iec 1048576; numfmt --from=si 1K; numfmt --to=si 999 1000 999.5 9999 15001 12345678",
    "numfmt --to=iec 1023 1024 1536 10240 1048575 123456789; numfmt --to=iec-i 2048 5000000",
    "numfmt --from=iec 1.1K 1M 1G; numfmt --from=iec-i 4Ki; numfmt --from=auto 1K 1Ki; numfmt --from=si 1.5K 2.3M",
    "numfmt 1K; echo $?; numfmt x; echo $?; numfmt --from=iec-i 4K; echo $?",
    "numfmt --to=si --suffix=B 1500000; numfmt --suffix=B 100B; numfmt --to=iec --padding=8 2048; numfmt --to=iec --padding=-8 2048 | cat -A",
    "numfmt --format='%.2f' 3.14159; numfmt --to=iec --format='%.3f' 1500000; numfmt --format='%10f' 42; numfmt --format='%-10f' 42 | cat -A",
    "printf 'a 1000 b\\nc 2000000 d\\n' | numfmt --field=2 --to=si",
    "printf 'size name\\n1024 a\\n2048 b\\n' | numfmt --header --to=iec",
    "printf '1000,a\\n2000,b\\n' | numfmt -d, --to=si",
    "numfmt --round=up --to=si 1001; numfmt --round=down --to=si 1999; numfmt --round=nearest --to=si 1450 1550; numfmt --round=towards-zero --to=si -- -1999",
    "numfmt --to=si -- -1500000; numfmt --to=iec 0; numfmt --to=si 1e3; echo $?",
    "numfmt --invalid=warn x 5; echo $?; numfmt --invalid=ignore x 5; echo $?; numfmt --invalid=fail x 5; echo $?",
    "printf '  1000\\n 2000000\\n' | numfmt --to=si | cat -A",
    "numfmt --to=si 1000000000000000000000; numfmt --to=iec 99999999999999999999999",
    "numfmt --to=bad 1; echo $?; numfmt --round=x 1; echo $?; numfmt --field=0 1; echo $?",
    "numfmt 3.14159 42 -7; numfmt --to=none 1.5",
    "numfmt --header=2 --to=si < /dev/null; printf 'a\\nb\\n1000\\n' | numfmt --header=2 --to=si",
    "numfmt --padding=0 1; echo $?; numfmt --format=abc 1; echo $?; numfmt -d ab 1; echo $?",
]


@pytest.mark.parametrize("command", SAME_AS_GNU)
def test_numfmt_answers_as_gnu(command: str) -> None:
    ours, host = both(command)
    assert ours == host
