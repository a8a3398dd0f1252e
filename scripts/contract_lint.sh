#!/bin/sh
# contract_lint.sh HEADER [FILE...]: fails when the code spells a name of the contract as a string literal
# instead of naming the constant generated for it from the registry (HEADER, ock/contract_map.h):
# an event name, a verdict, a journal entry kind, or a session config option whose name is not
# also a plain word (error_strategy; not streaming or mode), outside mutants/ (whose broken
# orchestrators read the session document as any SUT does). Comments and tests/ may spell them.
#
# In conformance/ it fails also on an event payload field (OCK_PF_<FIELD>) spelled as a literal:
# the checks read payloads through conformance/model/payload.h. A field name that is also a word
# of another format the harness reads (a neutral message's content or tool_calls, a fixture's
# expect keys, a HookResult's reason, a ToolResult's error, the report's orchestrator) is flagged
# where it is read from an event's data: on a line that names ock__event_data( or ->complete.
#
# FILE...: the files to read, instead of every tracked source (the lint's own test gives its own).
#
# A kind that is also a word of the wire or the fixture format ("event" is a member of an event
# POST, "cancel" and "session" keys of a fixture, "http_error" a tool error type) is flagged only
# where it names a kind: is_kind(), the journal's append functions, and strcmp(kind, ...).
set -eu
header=$1
shift
if [ $# -gt 0 ]; then
  files=$*
else
  files=$(git ls-files 'core/*.c' 'core/*.h' 'mock-provider/*.c' 'mock-provider/*.h' \
    'reference/*.c' 'reference/*.h' 'conformance/*.c' 'conformance/*.h' 'mutants/*.c' 'mutants/*.h')
fi
# shellcheck disable=SC2086
perl -e '
  my $header = shift;
  my (%anywhere, %as_kind, %config, %field, %field_word);
  my %words = map { $_ => 1 } qw(session event finding unmatched fault cancel http_error);
  # Payload fields that are also members of what else conformance/ reads: neutral messages
  # (content, tool_calls, tool_call_id), fixtures (status, turn_count, reason, tool_input,
  # tool_calls, delay_ms, result, error, model, trace_id, finish_reason), HookResult (reason,
  # tool_input), ToolResult (error), the recording (status, response), the report
  # (orchestrator, error); and status values ("error").
  my %field_words = map { $_ => 1 } qw(content tool_calls tool_call_id error status turn_count
    reason tool_input result model trace_id orchestrator delay_ms finish_reason response);
  open my $h, "<", $header or die "$header: $!\n";
  while (<$h>) {
    # A config option whose name is not also a word of the contract: not streaming or mode, nor
    # max_iterations (also a reason of orchestrator:complete).
    if (/^#define OCK_CFG_(\w+) "([a-z0-9]+_[a-z0-9_]+)"$/ && $1 eq uc $2) {
      $config{$2} = 1 unless $2 eq "max_iterations";
      next;
    }
    if (/^#define OCK_PF_\w+ "([^"]+)"$/) {
      if ($field_words{$1}) { $field_word{$1} = 1 } else { $field{$1} = 1 }
      next;
    }
    next unless /^#define OCK_(EV|KIND|V)_\w+ "([^"]+)"$/;
    if ($1 eq "KIND" && $words{$2}) { $as_kind{$2} = 1 } else { $anywhere{$2} = 1 }
  }
  die "$header: no names\n" unless %anywhere;
  die "$header: no payload fields\n" unless %field && %field_word;
  my $any = join "|", map { quotemeta } sort keys %anywhere;
  my $kind = join("|", map { quotemeta } sort keys %as_kind) || "(?!)";
  my $cfg = join("|", map { quotemeta } sort keys %config) || "(?!)";
  my $pf = join "|", map { quotemeta } sort keys %field;
  my $pfw = join "|", map { quotemeta } sort keys %field_word;
  my $bad = 0;
  local $/;
  for my $f (@ARGV) {
    open my $in, "<", $f or die "$f: $!\n";
    my $s = <$in>;
    $s =~ s{/\*.*?\*/}{"\n" x ($& =~ tr/\n//)}gse;  # comments, keeping line numbers
    my $n = 0;
    for my $line (split /\n/, $s, -1) {
      $n++;
      if ($f =~ m{^conformance/}
          && ($line =~ /"($pf)"/ || $line =~ /(?:ock__event_data\(|->complete\b).*"($pfw)"/)) {
        print "$f:$n: payload field \"$1\" spelled out: read it through model/payload.h ",
          "(OCK_FIELD_*) or name it OCK_PF_* from ock/contract_map.h\n";
        $bad = 1;
        next;
      }
      next unless $line =~ /"($any)"/
        || ($f !~ m{^mutants/} && $line =~ /"($cfg)"/)
        || $line =~ /(?:is_kind\(|journal_append\w*\(|plan_defer\(|strcmp\(kind, )[^"]*"($kind)"/;
      print "$f:$n: \"$1\" spelled out: use its constant from ock/contract_map.h\n";
      $bad = 1;
    }
  }
  exit $bad;
' "$header" $files
