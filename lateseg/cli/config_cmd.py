"""``lateseg config``: the settings in effect (from ``lateseg.toml`` or the defaults) and
where each came from, and the environment variables lateseg reads."""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

from lateseg import config as settings
from lateseg.cli.options import EXIT_OK

#: Variables whose values are secrets: shown as set or not, never printed.
SECRETS = {"LATESEG_LLM_API_KEY", "OPENAI_API_KEY", "LATESEG_SERVE_TOKEN", "PGPASSWORD"}


def add(sub: argparse._SubParsersAction) -> None:
    sp = sub.add_parser(
        "config",
        help="show the settings in effect, where each came from, and the environment variables",
        description="Settings come from the command line, else ./lateseg.toml, else the "
        "user's lateseg.toml ($XDG_CONFIG_HOME/lateseg/lateseg.toml, else "
        "~/.config/lateseg/lateseg.toml), else the built-in default; $LATESEG_CONFIG names "
        "one file instead (empty: none). This prints each lateseg.toml key with its value "
        "and origin, then the environment variables (secrets only as set or unset).",
        epilog="Example lateseg.toml:\n\n"
        '  [index]\n  path = "my_index"\n\n  [embedder]\n  backend = "openvino"\n\n'
        '  [generator]\n  answer = "quote"\n\n  [serve]\n  port = 8800\n  uploads = true',
    )
    sp.add_argument("--json", action="store_true", help="print machine-readable JSON")


def defaults(commands: list[tuple[str, argparse.ArgumentParser]]) -> dict[str, Any]:
    """Each setting's built-in default: its option's default in the first of
    ``commands`` (``(name, parser)``, before ``lateseg.toml`` is applied) that has it."""
    out: dict[str, Any] = {}
    for s in settings.SETTINGS:
        for name, sp in commands:
            if s.commands is not None and name not in s.commands:
                continue
            action = next((a for a in sp._actions if a.dest == s.dest), None)
            if action is not None:
                out[s.key] = action.default
                break
    return out


def run(args: argparse.Namespace) -> int:
    config: settings.Config = args.config
    builtin: dict[str, Any] = args.builtin
    rows = [
        {
            "key": s.key,
            "value": config.values.get(s.key, builtin.get(s.key)),
            "from": config.origins.get(s.key, "default"),
            "option": s.help,
        }
        for s in settings.SETTINGS
    ]
    env = [
        {
            "name": v.name,
            "set": v.name in os.environ,
            "value": None if v.name in SECRETS else os.environ.get(v.name),
            "default": v.default,
            "meaning": v.meaning,
            "read_by": v.read_by,
        }
        for v in settings.ENVIRONMENT
    ]
    files = [str(f) for f in config.files]
    if args.json:
        print(json.dumps({"files": files, "settings": rows, "environment": env}, indent=2))
        return EXIT_OK
    print("files read: " + (", ".join(files) or "none"))
    width = max(len(s.key) for s in settings.SETTINGS)
    for r in rows:
        value = "(none)" if r["value"] is None else json.dumps(r["value"])
        print(f"{r['key']:<{width}}  {value}  [{r['from']}]")
    print()
    print("environment:")
    width = max(len(v.name) for v in settings.ENVIRONMENT)
    for e in env:
        if not e["set"]:
            state = f"unset (default: {e['default']})"
        else:
            state = "set" if e["value"] is None else f"= {e['value']}"
        print(f"  {e['name']:<{width}}  {state}  {e['meaning']}")
    return EXIT_OK
