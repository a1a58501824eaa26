# The verbs a person types. `make run` and `make test` do all set-up on a fresh machine.
.PHONY: install generate check-generated build migrate run dev test test-pg fuzz lint sdk-check api-diff changelog typecheck typecheck-fast bench admin clean

NODE_MODULES := node_modules/.package-lock.json

install: $(NODE_MODULES)

$(NODE_MODULES): package.json package-lock.json
	npm ci
	@touch $(NODE_MODULES)

generate: install
	npm run --silent generate

# CI: generated/ must be what the spec produces.
check-generated: generate
	git diff --exit-code -- generated/ || (echo "generated/ is stale: run make generate and commit" && exit 1)

build: generate
	npm run --silent build

migrate: generate
	npx tsx scripts/migrate.ts

# npm start: node with the heap cap the service is deployed with (package.json; docs/operating.md, "Memory")
run: build
	npm start

# The spec at zero problems: Redocly recommended-strict (redocly.yaml), Spectral spectral:oas
# (.spectral.yaml), warnings included.
lint: install
	npx redocly lint spec/openapi.yaml
	npx spectral lint spec/openapi.yaml --fail-severity=warn

# The spec as SDK generators read it: generates an openapi-typescript + openapi-fetch client and
# an @hey-api/openapi-ts client into sdk/generated/ and type-checks sdk/flows/, which call every
# operation (scripts/sdk-check.ts).
sdk-check: generate
	npx tsx scripts/sdk-check.ts

# The contract over time: fails on a change that breaks a client of the released 1.1.2
# (spec/released/1.1.2.json) unless spec/released/breaking-exceptions.yaml accepts it with a
# reason, and when docs/api-changelog.md is stale (scripts/api-diff.ts).
api-diff: generate
	npx tsx scripts/api-diff.ts

# Rewrites docs/api-changelog.md from the difference (run after merging spec changes, commit it).
changelog: generate
	npx tsx scripts/api-diff.ts --changelog

typecheck: generate
	npx tsc --noEmit

# The native compiler (@typescript/native-preview, type-checking only, ~3x faster); the build and
# CI keep TypeScript 5.x (`make typecheck`).
typecheck-fast: generate
	npx tsgo --noEmit

# The edit-generate-test loop: serves the API, regenerates generated/ when spec/ changes,
# type-checks continuously and restarts the service on every change (scripts/dev.ts).
dev: generate
	npx tsx scripts/dev.ts

# Every test on the embedded database (scripts/test.ts: files in parallel, longest first, the
# ten slowest at the end). `make test FILES="test/groups.test.ts test/unit"` runs some.
test: generate
	npx tsx scripts/test.ts $(FILES)

# The tests that touch a database, on PostgreSQL (test/unit/ never does: `make test` ran it).
test-pg: generate
	DATABASE_URL=$${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres} npx tsx scripts/test.ts --database-only $(FILES)

# The spec-driven fuzzer at length (test/fuzz.test.ts): FUZZ_COUNT requests (default 100000)
# on FUZZ_SEED (default that of the suite); DATABASE_URL=... fuzzes PostgreSQL.
fuzz: generate
	FUZZ_COUNT=$${FUZZ_COUNT:-100000} npx tap test/fuzz.test.ts

# BENCH_ONLY=user,ratios,list,sync,stats,budgets,writes,import,import-session runs some parts; DATABASE_URL=... benches PostgreSQL.
bench: generate
	npx tsx scripts/bench.ts
	npx tsx scripts/bench/assistant.ts

admin: install
	npx tsx scripts/admin.ts $(ARGS)

clean:
	rm -rf dist .tap sdk/generated
