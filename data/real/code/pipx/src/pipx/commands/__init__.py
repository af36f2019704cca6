from __future__ import annotations

from pipx.commands.cache import CacheData, print_cache_dir, purge_cache
from pipx.commands.ensure_path import ensure_pipx_paths
from pipx.commands.environment import environment
from pipx.commands.execute import execute
from pipx.commands.expose import ExposureData, expose, unexpose
from pipx.commands.health import HealthData, RepairData, health, repair
from pipx.commands.inject import InjectionData, inject
from pipx.commands.install import InstallData, install, install_all
from pipx.commands.interpreter import (
    InterpreterData,
    list_interpreters,
    prune_interpreters,
    upgrade_interpreters,
)
from pipx.commands.list_packages import list_packages
from pipx.commands.manifest import ManifestData, lock_manifest, sync_manifest
from pipx.commands.outdated import OutdatedData, list_outdated
from pipx.commands.pin import PinData, pin, unpin
from pipx.commands.reinstall import ReinstallData, reinstall, reinstall_all
from pipx.commands.reset import ResetData, reset
from pipx.commands.run import run
from pipx.commands.run_pip import run_pip
from pipx.commands.uninject import uninject
from pipx.commands.uninstall import UninstallData, uninstall, uninstall_all
from pipx.commands.upgrade import SharedData, upgrade, upgrade_all, upgrade_shared

__all__ = [
    "CacheData",
    "ExposureData",
    "HealthData",
    "InjectionData",
    "InstallData",
    "InterpreterData",
    "ManifestData",
    "OutdatedData",
    "PinData",
    "ReinstallData",
    "RepairData",
    "ResetData",
    "SharedData",
    "UninstallData",
    "ensure_pipx_paths",
    "environment",
    "execute",
    "expose",
    "health",
    "inject",
    "install",
    "install_all",
    "list_interpreters",
    "list_outdated",
    "list_packages",
    "lock_manifest",
    "pin",
    "print_cache_dir",
    "prune_interpreters",
    "purge_cache",
    "reinstall",
    "reinstall_all",
    "repair",
    "reset",
    "run",
    "run_pip",
    "sync_manifest",
    "unexpose",
    "uninject",
    "uninstall",
    "uninstall_all",
    "unpin",
    "upgrade",
    "upgrade_all",
    "upgrade_interpreters",
    "upgrade_shared",
]
