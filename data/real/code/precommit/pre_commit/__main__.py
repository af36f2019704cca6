from __future__ import annotations

from pre_commit.main import main


if __name__ == '__main__':
    raise SystemExit(main())
