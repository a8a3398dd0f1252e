#!/bin/sh
# contract_lint.sh HEADER: fails when the code spells a name of the contract as a string literal
# instead of naming the constant generated for it from the registry (HEADER, ock/contract_map.h):
# an event name, a verdict, a journal entry kind, or a session config option whose name is not
# also a plain word (error_strategy; not streaming or mode), outside mutants/ (whose broken
# orchestrators read the session document as any SUT does). Comments and tests/ may spell them.
#
# A kind that is also a word of the wire or the fixture format ("event" is a member of an event
# POST, "cancel" and "session" keys of a fixture, "http_error" a tool error type) is flagged only
# where it names a kind: is_kind(), the journal's append functions, and strcmp(kind, ...).
set -eu
header=$1
files=$(git ls-files 'core/*.c' 'core/*.h' 'mock-provider/*.c' 'mock-provider/*.h' \
  'reference/*.c' 'reference/*.h' 'conformance/*.c' 'conformance/*.h' 'mutants/*.c' 'mutants/*.h')
# shellcheck disable=SC2086
perl -e '
  my $header = shift;
  my (%anywhere, %as_kind, %config);
  my %words = map { $_ => 1 } qw(session event finding unmatched fault cancel http_error);
  open my $h, "<", $header or die "$header: $!\n";
  while (<$h>) {
    # A config option whose name is not also a word of the contract: not streaming or mode, nor
    # max_iterations (also a reason of orchestrator:complete).
    if (/^#define OCK_CFG_(\w+) "([a-z0-9]+_[a-z0-9_]+)"$/ && $1 eq uc $2) {
      $config{$2} = 1 unless $2 eq "max_iterations";
      next;
    }
    next unless /^#define OCK_(EV|KIND|V)_\w+ "([^"]+)"$/;
    if ($1 eq "KIND" && $words{$2}) { $as_kind{$2} = 1 } else { $anywhere{$2} = 1 }
  }
  die "$header: no names\n" unless %anywhere;
  my $any = join "|", map { quotemeta } sort keys %anywhere;
  my $kind = join("|", map { quotemeta } sort keys %as_kind) || "(?!)";
  my $cfg = join("|", map { quotemeta } sort keys %config) || "(?!)";
  my $bad = 0;
  local $/;
  for my $f (@ARGV) {
    open my $in, "<", $f or die "$f: $!\n";
    my $s = <$in>;
    $s =~ s{/\*.*?\*/}{"\n" x ($& =~ tr/\n//)}gse;  # comments, keeping line numbers
    my $n = 0;
    for my $line (split /\n/, $s, -1) {
      $n++;
      next unless $line =~ /"($any)"/
        || ($f !~ m{^mutants/} && $line =~ /"($cfg)"/)
        || $line =~ /(?:is_kind\(|journal_append\w*\(|plan_defer\(|strcmp\(kind, )[^"]*"($kind)"/;
      print "$f:$n: \"$1\" spelled out: use its constant from ock/contract_map.h\n";
      $bad = 1;
    }
  }
  exit $bad;
' "$header" $files
