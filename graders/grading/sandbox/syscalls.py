"""The Linux system calls that build the sandbox (namespaces, mounts, loopback), each raising
:class:`OSError` on failure.

The libc handle and ``prctl`` live in :mod:`graders.proc`: the worker world needs them too.
"""

from __future__ import annotations

import ctypes
import fcntl
import platform
import socket
import struct

from graders.proc import check, libc

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
#: Every namespace a graded tree gets (the supervisor's ``unshare``, and the probe's).
NEW_NAMESPACES = CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MNT_DETACH = 2
PR_SET_DUMPABLE, PR_SET_NO_NEW_PRIVS = 4, 38
SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}.get(platform.machine())
SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1


def unshare(flags: int) -> None:
    check(libc().unshare(flags), "unshare")


def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    enc = [None if s is None else s.encode() for s in (source, target, fstype, data)]
    check(libc().mount(enc[0], enc[1], enc[2], ctypes.c_ulong(flags), enc[3]), f"mount {target}")


def umount(target: str, flags: int = 0) -> None:
    check(libc().umount2(target.encode(), flags), f"umount {target}")


def pivot_root(new_root: str, put_old: str) -> None:
    if SYS_PIVOT_ROOT is None:
        raise OSError(38, "pivot_root: unknown syscall number on this architecture")
    check(libc().syscall(SYS_PIVOT_ROOT, new_root.encode(), put_old.encode()), "pivot_root")


def loopback_up() -> None:
    """Bring ``lo`` up in a fresh network namespace (it starts down)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sh", b"lo", 0)
        flags = struct.unpack("16sh", _ioctl(sock, SIOCGIFFLAGS, request))[1]
        _ioctl(sock, SIOCSIFFLAGS, struct.pack("16sh", b"lo", flags | IFF_UP))


def _ioctl(sock: socket.socket, request: int, arg: bytes) -> bytes:
    return fcntl.ioctl(sock.fileno(), request, arg + b"\0" * 8)[: len(arg)]
