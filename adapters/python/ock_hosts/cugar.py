"""ock-cugar (written next)."""


def main() -> int:
    return 2
