"""Python agent frameworks run under the OCK SUT protocol ock/1: one bridge per framework."""
