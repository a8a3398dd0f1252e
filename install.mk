# install.mk: `make install PREFIX=/usr/local DESTDIR=` puts the three commands, the scenario
# catalog, the report schema and the man pages where `ock` finds them
# (PREFIX/share/ock/fixtures is its default --fixtures).
PREFIX  ?= /usr/local
DESTDIR ?=
BINDIR  := $(DESTDIR)$(PREFIX)/bin
DATADIR := $(DESTDIR)$(PREFIX)/share/ock
MANDIR  := $(DESTDIR)$(PREFIX)/share/man/man1

.PHONY: install uninstall
install: all
	install -d $(BINDIR) $(DATADIR)/fixtures $(MANDIR)
	install -m 755 $(OCK_BIN) $(REF_CLI) $(MOCK_BIN) $(BINDIR)
	install -m 644 fixtures/*.json $(DATADIR)/fixtures
	install -m 644 reports/report.schema.json SPEC.md $(DATADIR)
	install -m 644 man/ock.1 man/ock-mock-provider.1 man/ock-orchestrator.1 $(MANDIR)

uninstall:
	rm -f $(BINDIR)/ock $(BINDIR)/ock-orchestrator $(BINDIR)/ock-mock-provider
	rm -rf $(DATADIR)
	rm -f $(MANDIR)/ock.1 $(MANDIR)/ock-mock-provider.1 $(MANDIR)/ock-orchestrator.1
