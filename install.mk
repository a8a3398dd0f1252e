# install.mk: `make install PREFIX=/usr/local DESTDIR=` puts the three commands, the scenario
# catalog, the report schema, the contract (SPEC.md, CHANGELOG.md and the pages of docs/ it
# links) and the man pages where `ock` finds them (PREFIX/share/ock/fixtures is its default
# --fixtures).
PREFIX  ?= /usr/local
DESTDIR ?=
BINDIR  := $(DESTDIR)$(PREFIX)/bin
DATADIR := $(DESTDIR)$(PREFIX)/share/ock
MANDIR  := $(DESTDIR)$(PREFIX)/share/man/man1

# The pages SPEC.md links to, which keep its section numbers.
SPEC_PAGES := docs/requirements.md docs/mock-wires.md docs/fixtures.md docs/grading.md \
              docs/reports.md docs/grammar.md docs/hosts.md

.PHONY: install uninstall
install: all
	install -d $(BINDIR) $(DATADIR)/fixtures $(DATADIR)/docs $(MANDIR)
	install -m 755 $(OCK_BIN) $(REF_CLI) $(MOCK_BIN) $(BINDIR)
	install -m 644 fixtures/*.json $(DATADIR)/fixtures
	install -m 644 reports/report.schema.json SPEC.md CHANGELOG.md $(DATADIR)
	install -m 644 $(SPEC_PAGES) $(DATADIR)/docs
	install -m 644 man/ock.1 man/ock-mock-provider.1 man/ock-orchestrator.1 $(MANDIR)

uninstall:
	rm -f $(BINDIR)/ock $(BINDIR)/ock-orchestrator $(BINDIR)/ock-mock-provider
	rm -rf $(DATADIR)
	rm -f $(MANDIR)/ock.1 $(MANDIR)/ock-mock-provider.1 $(MANDIR)/ock-orchestrator.1
