# adapters/js: the package's unit tests and its type check.
#
# make test runs `node --test` in adapters/js (the client, the shared bridge code, each bridge
# with its framework replaced by a stand-in, the packed tarball installed offline, real documents
# against contract.schema.json; no registry),
# and js-typecheck: tsc from the pinned devDependencies of adapters/js/package-lock.json, installed
# by npm ci into $(JS_DEV), checks src/client.js and src/bridge.js (strict), the bridges and bins
# (checkJs, their frameworks typed any), the declarations in types/ through a consumer
# (test/types/consumer.ts), and that types/client.d.ts is what src/client.js generates.
# make js-types writes types/client.d.ts again after a change to src/client.js.
JS_DEV       := $(BUILD)/js-dev
JS_DEV_STAMP := $(JS_DEV)/.installed
JS_DEV_ABS    = $(abspath $(JS_DEV))
JS_TSC        = $(JS_DEV_ABS)/node_modules/.bin/tsc
JS_TSC_FLAGS  = --typeRoots $(JS_DEV_ABS)/node_modules/@types

.PHONY: js-typecheck js-types test-js
$(JS_DEV_STAMP): adapters/js/package.json adapters/js/package-lock.json
	@rm -rf $(JS_DEV) && mkdir -p $(JS_DEV)
	cp adapters/js/package.json adapters/js/package-lock.json $(JS_DEV)/
	cd $(JS_DEV) && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
	@touch $@

js-typecheck: $(JS_DEV_STAMP)
	cd adapters/js && $(JS_TSC) -p tsconfig.json $(JS_TSC_FLAGS)
	cd adapters/js && $(JS_TSC) -p tsconfig.bridges.json $(JS_TSC_FLAGS)
	@rm -rf $(JS_DEV)/types
	cd adapters/js && $(JS_TSC) -p tsconfig.emit.json $(JS_TSC_FLAGS) --outDir $(JS_DEV_ABS)/types
	@diff -u adapters/js/types/client.d.ts $(JS_DEV)/types/client.d.ts || \
	  { echo "adapters/js/types/client.d.ts is not what src/client.js generates: run make js-types"; exit 1; }
	@echo "js-typecheck: ok"

js-types: $(JS_DEV_STAMP)
	cd adapters/js && $(JS_TSC) -p tsconfig.emit.json $(JS_TSC_FLAGS)

# Node 20 or later: the bridges' tests install their stand-ins with node:module register.
JS_NODE_OK = command -v node >/dev/null 2>&1 && node -e 'process.exit(+process.versions.node.split(".")[0] >= 20 ? 0 : 1)'
JS_TEST_CMD = cd adapters/js && OCK_BUILD="$(abspath $(BUILD))" node --test test/*.test.js
test-js:
	$(JS_TEST_CMD)
