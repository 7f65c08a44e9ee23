# Lectern's entry points. The README's two set-up commands are `make demo` and `make test`.
SHELL := /bin/bash
SWIFT ?= swift
SPEC ?= pipelines/examples/python-basics.yaml
OUTPUT ?= output
APT_PACKAGES := libcurl4-openssl-dev libxml2-dev libcmark-gfm-dev libcmark-gfm-extensions-dev

.PHONY: deps build release test demo model fixtures bench clean help

help:
	@echo "make demo      run the main job (python-basics) on the local model; installs what it needs"
	@echo "make test      install system packages if missing, then run every test"
	@echo "make model     install the local model (llama.cpp server + Qwen2.5-Coder-1.5B, once)"
	@echo "make fixtures  re-record the example cassettes and the golden bundle"
	@echo "make bench     run the benchmarks (see docs/BENCHMARKS.md)"

# System libraries the build links against (Debian/Ubuntu). Installs only what is missing.
deps:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; fi; \
	fi

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release --product lectern

test: deps
	$(SWIFT) test

model:
	scripts/install-local-model.sh qwen2.5-coder-1.5b-instruct

demo: deps model release
	@status=0; .build/release/lectern run $(SPEC) --output $(OUTPUT) --allow-partial || status=$$?; \
	  id=$$(sed -n 's/^id: *//p' $(SPEC)); version=$$(sed -n 's/^version: *//p' $(SPEC)); dir=$(OUTPUT)/$$id/$$version; \
	  if [ -d "$$dir" ]; then \
	    .build/release/lectern verify "$$dir" && echo "bundle: $$dir" && \
	    echo "lectures (XHTML): $$(ls $$dir/lectures/*.xhtml 2>/dev/null | head -1)"; \
	  fi; \
	  if [ $$status -ne 0 ]; then \
	    echo "some items did not pass validation on the local model (listed above; the manifest's incomplete_items names them)."; \
	    echo "run 'make demo' again: each re-run gives a failed item another round of attempts (the rest comes from the cache)."; \
	  fi; \
	  exit $$status

fixtures: release
	scripts/record-fixtures.sh

bench:
	benchmarks/run-all.sh

clean:
	rm -rf .build $(OUTPUT)
