#!/bin/sh
# Fill fuzz/corpus/<target>/ from the repository: every .rules file in games/, stdlib/ and tests/
# for the file targets (check_file, run_game, fmt_roundtrip), the REPL scripts in tests/repl/ for
# repl_lines, a real save for load_save, the raw sessions in tests/lsp/raw/ for lsp_messages,
# the web requests in tests/serve_requests/ for serve_requests, and the crash cases and kept
# corpora in fuzz/regressions/. Run from the repository root.
set -e
for t in check_file run_game load_save repl_lines lsp_messages fmt_roundtrip serve_requests; do mkdir -p fuzz/corpus/$t; done
i=0
find games stdlib tests -name '*.rules' | sort | while read -r f; do
  i=$((i + 1))
  cp "$f" "fuzz/corpus/check_file/seed-$i.rules"
  cp "$f" "fuzz/corpus/run_game/seed-$i.rules"
  cp "$f" "fuzz/corpus/fmt_roundtrip/seed-$i.rules"
done
for f in tests/repl/*.txt; do cp "$f" fuzz/corpus/repl_lines/; done
for f in tests/lsp/raw/*.txt; do cp "$f" fuzz/corpus/lsp_messages/; done
for f in tests/serve_requests/*.txt; do cp "$f" fuzz/corpus/serve_requests/; done
printf ':step\n:save fuzz/corpus/load_save/seed.json\n' |
  cargo run -q -- repl games/the-establishment.rules >/dev/null
for t in check_file run_game load_save repl_lines lsp_messages fmt_roundtrip serve_requests; do
  cp fuzz/regressions/$t/* fuzz/corpus/$t/ 2>/dev/null || true
done
