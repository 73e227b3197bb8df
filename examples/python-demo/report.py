"""Summarises a few measurements; run with no arguments for a demonstration."""
import pandas as pd


def main() -> None:
    frame = pd.DataFrame(
        {"layer": ["declared", "installed", "traced"], "packages": [2, 11, 5]},
    )
    frame["share"] = frame["packages"] / frame["packages"].max()
    print(frame.to_string(index=False))


if __name__ == "__main__":
    main()
