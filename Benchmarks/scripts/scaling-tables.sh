#!/usr/bin/env bash
# Prints the scaling scenarios of a `consumer-bench --json` run (N1–N3, P1–P3, M1–M3) as the
# Markdown tables of Benchmarks/RESULTS.md, so a new run can replace the old tables as they are.
# Usage: swift run -c release consumer-bench --json > run.json
#        Benchmarks/scripts/scaling-tables.sh run.json
set -euo pipefail
jq -rs '
def commas: (if . < 0 then "-" else "" end) as $sign
    | (fabs | round | tostring | explode | reverse | [_nwise(3) | reverse | implode] | reverse | join(",")) as $digits
    | $sign + $digits;
def ns: if . == null then "–" elif . >= 100 then commas else (. * 10 | round / 10 | tostring) end;
def ratio: if . == null then "–" else ((. * 100 | round / 100 | tostring) + "×") end;
def check: if .correct then "ok" else "FAIL: " + .failure end;
def single: if .single_sample then " (1 sample)" else "" end;
def meets($value; $limit): if $value == null then "" elif $value <= $limit then "" else " ✗" end;

"### N1, N2: selectors on distinct values, and consumers on one key path\n",
"| scenario | row | ns/dispatch | ns/callback | vs floor | N consumers ÷ 1 consumer (≤ 1.5×) | growth from N/10 (≤ 11×) | the floor'"'"'s growth | check |",
"| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
(.[] | select(.scenario == "N1" or .scenario == "N2")
    | "| \(.scenario) | \(.title) | \(.ns_per_op | ns)\(single) | \(.ns_per_callback | ns) | \(.vs_floor | ratio) "
      + "| \(.vs_1_consumer | ratio)\(meets(.vs_1_consumer; 1.5)) | \(.growth | ratio)\(meets(.growth; 11)) "
      + "| \(.floor_growth | ratio) | \(check) |"),
"",
"### N3: one consumer, all closure selectors fire\n",
"| selectors | ns/dispatch | ns/callback | vs floor | growth exponent (1 = linear) | check |",
"| ---: | ---: | ---: | ---: | ---: | --- |",
(.[] | select(.scenario == "N3")
    | "| \(.title | capture("(?<n>[0-9,]+) closure").n) | \(.ns_per_op | ns) | \(.ns_per_callback | ns) "
      + "| \(.vs_floor | ratio) | \(if .growth_exponent then (.growth_exponent * 100 | round / 100 | tostring) else "–" end) | \(check) |"),
"",
"### P1–P3: pages\n",
"| scenario | row | ns/dispatch | figures | target | check |",
"| --- | --- | ---: | --- | --- | --- |",
(.[] | select(.scenario == "P1")
    | "| P1 | \(.title) | \(.ns_per_op | ns) | \(.vs_1_consumer | ratio) 1 consumer with as many members (\(.one_consumer_ns_per_op | ns) ns), "
      + "\(.vs_floor | ratio) floor (\(.floor_ns_per_op | ns) ns), \(.ns_per_page | ns) ns per page | \(.target) | \(check) |"),
(.[] | select(.scenario == "P2")
    | "| P2 | \(.title) | \(.ns_per_op | ns) | \(.vs_no_pages | ratio) no pages (\(.no_pages_ns_per_op | ns) ns) | \(.target) | \(check) |"),
(.[] | select(.scenario == "P3")
    | "| P3 | \(.title) | \(.ns_per_op | ns) per page created | \(.bytes_per_page | commas) bytes per page beyond its state; "
      + "a plain `Store`: \(.plain_store_bytes | commas) bytes | \(.target) | \(check) |"),
"",
"### M1–M3: memory per key-path consumer\n",
"| scenario | row | ns per add | bytes per consumer | target | check |",
"| --- | --- | ---: | ---: | --- | --- |",
(.[] | select(.scenario | test("^M[0-9]"))
    | "| \(.scenario) | \(.title) | \(.ns_per_op | ns) | \(.bytes_per_consumer * 10 | round / 10)"
      + "\(if .token_inline_bytes then " (token: \(.token_inline_bytes) inline)" else "" end) | \(.target) | \(check) |")
' "$@"
