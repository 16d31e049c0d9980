# SPDX-License-Identifier: GPL-2.0
# W=bench-tlb, sourced by /mmrs/workload.sh (`make bench-real`): W=bench's
# steps (workloads/bench.sh), one round unless ROUNDS says otherwise, in a
# boot whose mmrs-meter plugin also models the TLBs (scripts/workload.sh):
# the TLB figures of docs/bench/real.md.
# shellcheck source=/dev/null
. /mmrs/workloads/bench.sh
