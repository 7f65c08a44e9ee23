# Lectern's entry points. The README's two set-up commands are `make demo` and `make test`.
SHELL := /bin/bash
SWIFT ?= swift
SPEC ?= pipelines/examples/python-basics.yaml
OUTPUT ?= output
# What the build links against, and what `run` itself starts (espeak-ng and opusenc narrate;
# python3-venv holds the local model's server). Debian/Ubuntu package names.
APT_PACKAGES := libcurl4-openssl-dev libxml2-dev libcmark-gfm-dev libcmark-gfm-extensions-dev libsqlite3-dev python3-venv espeak-ng opus-tools
# What only the tests run, to check Lectern's output as its readers would: the exam bank against
# its JSON Schema (python3-jsonschema, with /usr/bin/python3), EPUB exports (epubcheck, with a
# Java runtime), `lectern preview` in headless Chromium (chromium), narration decoded again
# (opusdec, in opus-tools above).
TEST_APT_PACKAGES := python3-jsonschema epubcheck chromium
# Python tools the tests run as their users would (an Anki import, a QTI converter), in a venv
# of their own; pinned, installed from PyPI once.
TEST_TOOLS ?= $(HOME)/.cache/lectern/test-tools
TEST_PYPI := anki==26.9.3 citolab-qti-convert==0.2.0
export LECTERN_TEST_TOOLS := $(TEST_TOOLS)
# `make install` puts lectern under $(DESTDIR)$(PREFIX); BIN_DIR is the build it copies.
PREFIX ?= /usr/local
DESTDIR ?=
BIN_DIR ?= .build/release

.PHONY: deps test-deps test-tools build release lint test demo model fixtures bench clean help install install-files uninstall

help:
	@echo "make demo      run the main job (python-basics) on the local model; installs what it needs"
	@echo "make test      install what the tests need if missing (system packages, chromium, epubcheck, test tools), lint the Swift layout, then run every test"
	@echo "make lint      check every Swift file against .swift-format (swift format lint --strict)"
	@echo "make install   build the release binary and install it as \$$(PREFIX)/bin/lectern (PREFIX=$(PREFIX))"
	@echo "make uninstall remove what 'make install' put under \$$(PREFIX)"
	@echo "make model     install the local model (llama.cpp server + Qwen2.5-Coder-1.5B, once)"
	@echo "make fixtures  re-record the example cassettes and the golden bundle"
	@echo "make bench     run the benchmarks (see docs/BENCHMARKS.md)"

# Installs the Debian packages named in $(1) that are not installed (as root, else with sudo).
define apt_install
	@missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; fi; \
	fi
endef

# System libraries the build links against (Debian/Ubuntu). Installs only what is missing.
deps:
	$(call apt_install,$(APT_PACKAGES))

# The packages only the tests use. Installs only what is missing.
test-deps:
	$(call apt_install,$(TEST_APT_PACKAGES))

test-tools:
	@if ! "$(TEST_TOOLS)/bin/python" -c "import anki, qti_convert" >/dev/null 2>&1; then \
	  echo "installing the test tools ($(TEST_PYPI)) into $(TEST_TOOLS)"; \
	  rm -rf "$(TEST_TOOLS)" && python3 -m venv "$(TEST_TOOLS)" && "$(TEST_TOOLS)/bin/pip" install -q $(TEST_PYPI); \
	fi

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release --product lectern

# The layout every Swift file follows (Sources/, Tests/, benchmarks/, fuzz/, Package.swift): `swift format
# lint --strict` (the toolchain's swift-format) with the committed .swift-format — 4-space
# indentation, lines of at most 200 columns (only string literals run longer), the author's line breaks kept but none missing where
# a construct needs one, imports in order, a trailing comma after the last of several elements of a multi-line collection
# literal, at most one blank line; any finding fails. `swift format format --in-place --recursive
# Sources Tests benchmarks fuzz Package.swift` fixes what it finds. (Symbols.swift's data tables are
# exempt: `// swift-format-ignore` above each.)
lint:
	$(SWIFT) format lint --strict --recursive Sources Tests benchmarks fuzz Package.swift

test: deps test-deps test-tools lint
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

# The installed layout (lectern reads these at run time):
#   bin/lectern                   a link to ../libexec/lectern/lectern
#   libexec/lectern/lectern       the binary, and beside it its SwiftPM resource bundle
#   libexec/lectern/*.resources   (the prompt templates), where the binary looks for it
#   share/lectern/presets/        the built-in presets, for specs outside this repository
#   share/lectern/install-local-model.sh   what `lectern models install` runs
install: release
	@$(MAKE) --no-print-directory install-files PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" BIN_DIR="$(BIN_DIR)"

# Installs an already built lectern from BIN_DIR (what `make install` does after building).
install-files:
	@[ -n "$(PREFIX)" ] || { echo "PREFIX is empty" >&2; exit 2; }
	@[ -x "$(BIN_DIR)/lectern" ] || { echo "no $(BIN_DIR)/lectern: run 'make install' (or 'make release' first)" >&2; exit 2; }
	@[ -d "$(BIN_DIR)/Lectern_LecternPipeline.resources" ] || { echo "no prompt templates in $(BIN_DIR)/Lectern_LecternPipeline.resources" >&2; exit 2; }
	rm -rf "$(DESTDIR)$(PREFIX)/libexec/lectern" "$(DESTDIR)$(PREFIX)/share/lectern"
	install -d "$(DESTDIR)$(PREFIX)/bin" "$(DESTDIR)$(PREFIX)/libexec/lectern" "$(DESTDIR)$(PREFIX)/share/lectern"
	install -m 755 "$(BIN_DIR)/lectern" "$(DESTDIR)$(PREFIX)/libexec/lectern/lectern"
	@for bundle in "$(BIN_DIR)"/*.resources; do \
	  case "$$bundle" in *Tests.resources) ;; *) echo "cp -R $$bundle $(DESTDIR)$(PREFIX)/libexec/lectern/"; cp -R "$$bundle" "$(DESTDIR)$(PREFIX)/libexec/lectern/";; esac; \
	done
	cp -R pipelines/presets "$(DESTDIR)$(PREFIX)/share/lectern/presets"
	install -m 755 scripts/install-local-model.sh "$(DESTDIR)$(PREFIX)/share/lectern/install-local-model.sh"
	ln -sfn ../libexec/lectern/lectern "$(DESTDIR)$(PREFIX)/bin/lectern"
	@echo "installed $(DESTDIR)$(PREFIX)/bin/lectern"

uninstall:
	@[ -n "$(PREFIX)" ] || { echo "PREFIX is empty" >&2; exit 2; }
	rm -f "$(DESTDIR)$(PREFIX)/bin/lectern"
	rm -rf "$(DESTDIR)$(PREFIX)/libexec/lectern" "$(DESTDIR)$(PREFIX)/share/lectern"

fixtures: release
	scripts/record-fixtures.sh

bench:
	benchmarks/run-all.sh

clean:
	rm -rf .build $(OUTPUT)
