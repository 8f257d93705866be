"""``wasi_snapshot_preview1`` served from the virtual machine: its files, streams, clock and budget.

The guest never sees a host file: ``/`` is the virtual filesystem (preopened as fd 3), and a small
private tree (:data:`BOOT_DIR`, fd 4) holds the start-up hook. Every call first settles the fuel
the guest burnt since the last call against the step's work budget (:meth:`WasiHost._settle`),
so a budget error or a ``timeout`` deadline fires at the same instruction on any machine; the
clock the guest reads is that virtual time. Sockets and processes do not exist (ENOTSUP).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ....vfs import DirNode, FileNode, FsError, LinkNode, VirtualFS
from ...limits import WORK_PER_SECOND, Budget, current
from . import abi
from .files import NS, DeviceFd, DirFd, Fd, FileFd, StdinFd, StreamFd, WasiError, filestat
from .spawn import SPAWN

if TYPE_CHECKING:
    from ...proc import _Ctx

#: fuel (about one WebAssembly instruction) per unit of the step's work (a nominal microsecond)
FUEL_PER_UNIT = 2000
#: where the private start-up tree is preopened: the site-packages folder of the packed standard
#: library, which ``site`` puts on ``sys.path`` and imports ``sitecustomize`` from even under
#: ``-I`` / ``-E`` (the hook takes the folder off ``sys.path`` again)
BOOT_DIR = "/usr/local/lib/python3.12/site-packages"
#: the ``fd_advise`` offset that marks a ``dup`` / ``dup2`` request of the start-up hook
DUP_MARKER = 0x5A17D0F0
#: the uptime the monotonic clock starts from (seconds)
UPTIME = 86_400
_DEVICES = {"null", "zero", "full", "urandom", "random", "tty"}
_STDIO = {"/dev/stdin": 0, "/dev/stdout": 1, "/dev/stderr": 2, "/proc/self/fd/0": 0,
          "/proc/self/fd/1": 1, "/proc/self/fd/2": 2}  # fmt: skip


#: the folders the binary's own packed tree covers (mounted at /usr inside the module, by wasi-vfs),
#: with the names in it; the virtual filesystem's other entries there are preopened one by one
_PACKED = {"/usr": {"local"}, "/usr/local": {"lib"}, "/usr/local/lib": {"python3.12", "python312.zip"},
           "/usr/local/lib/python3.12": {"lib-dynload", "site-packages"}}  # fmt: skip


def shadowed(fs: VirtualFS) -> list[str]:
    """The virtual folders under /usr the packed standard library would hide, to preopen (the
    guest's libc picks the longest preopened prefix, so these win over the packed /usr)."""
    out = []
    for parent, packed in _PACKED.items():
        try:
            names = fs.listdir(parent)
        except FsError:
            continue
        out += [f"{parent}/{n}" for n in names if n not in packed and fs.is_dir(f"{parent}/{n}")]
    return out


#: calls that neither do work nor read the clock: the fuel burnt so far is settled at the next
#: other call (wasi-vfs, the packed filesystem's layer, reads the environment ~150 times a start)
_NO_WORK = {"args_sizes_get", "args_get", "environ_sizes_get", "environ_get", "clock_res_get",
            "fd_prestat_get", "fd_prestat_dir_name", "fd_fdstat_get", "sched_yield"}  # fmt: skip


class ProcExit(BaseException):
    """The guest called ``proc_exit``: its run ends with ``code``."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


class WasiHost:
    """The WASI functions of one guest run, over ``fs`` and the shell streams of ``ctx``."""

    def __init__(self, fs: VirtualFS, ctx: _Ctx, argv: list[str], env: list[tuple[str, str]],
                 boot: VirtualFS, rng: Any, transform: Callable[[str], str]) -> None:  # fmt: skip
        self.fs = fs
        self.argv = [a.encode("utf-8", "surrogateescape") for a in argv]
        self.env = [f"{k}={v}".encode("utf-8", "surrogateescape") for k, v in env]
        self.env_size = sum(len(e) + 1 for e in self.env)
        self.rng = rng
        self.fds: dict[int, Fd] = {
            0: StdinFd(ctx.stdin),
            1: StreamFd(ctx.out, transform),
            2: StreamFd(ctx.err, transform),
            3: DirFd(fs, "/", 1, "/"),
            4: DirFd(boot, "/", 2, BOOT_DIR),
        }
        for path in shadowed(fs):
            self.fds[len(self.fds)] = DirFd(fs, path, 1, path)
        self.boot = boot
        self.dup_source: Fd | None = None
        #: runs a request of the guest's subprocess in the machine's shell (``spawn``)
        self.spawn: Callable[[bytes], bytes] | None = None
        self.spawn_answer = b""
        self.mem: abi.Memory | None = None
        self.budget: Budget = current()
        self.given = 0  # fuel handed to the store at the last settling
        self.carry = 0  # fuel burnt that has not made a whole unit of work yet
        self.raised: BaseException | None = None
        self.clock0 = fs.clock  # the frozen wall clock the step started at

    # -- fuel and the budget ---------------------------------------------------------------------

    def allowance(self) -> int:
        """Fuel up to the step's limit (or the nearest ``timeout`` deadline), and one unit past
        it, so running out of fuel is exactly the moment the budget would end the step."""
        b = self.budget
        limit = b.work_limit
        if b.deadlines:
            limit = min(limit, int((min(b.deadlines) - b.slept) * WORK_PER_SECOND))
        return (max(0, limit - b.work) + 1) * FUEL_PER_UNIT

    def start(self, store: Any) -> None:
        self.given = self.allowance()
        store.set_fuel(self.given)

    def _settle(self, store: Any) -> None:
        """Count the fuel burnt since the last call as work (which may end the step here)."""
        import wasmtime

        left = wasmtime.Store.get_fuel(store)
        units, self.carry = divmod(self.given - left + self.carry, FUEL_PER_UNIT)
        self.given = left
        if units:
            self.budget.spend(units)

    def refuel(self, store: Any) -> None:
        import wasmtime

        self.given = self.allowance()
        wasmtime.Store.set_fuel(store, self.given)

    def finish(self, store: Any, out_of_fuel: bool) -> None:
        """Settle the last stretch; out of fuel, the budget is past its limit: it says so."""
        self._settle(store)  # out of fuel, this is already one unit past the limit: it raises
        if out_of_fuel:
            self.budget.spend(max(1, self.budget.work_limit - self.budget.work + 1))

    # -- the import table ------------------------------------------------------------------------

    def define(self, linker: Any, module: Any) -> None:
        """Put every ``wasi_snapshot_preview1`` import of ``module`` into ``linker``."""
        for imp in module.imports:
            fn = getattr(self, imp.name, None) or self._unsupported
            wrapped = self._wrap(fn, settles=imp.name not in _NO_WORK)
            linker.define_func(imp.module, imp.name, imp.type, wrapped, access_caller=True)

    def _wrap(self, fn: Callable[..., int | None], settles: bool = True) -> Callable[..., int | None]:
        def call(caller: Any, *args: int) -> int | None:
            mem = self.mem
            assert mem is not None
            mem.store = caller
            try:
                if not settles:
                    return fn(*args)
                self._settle(caller)
                result = fn(*args)
                self.refuel(caller)
                return result
            except WasiError as exc:
                return exc.errno
            except FsError as exc:
                return abi.FS_ERRNO.get(exc.code, abi.EIO)
            except BaseException as exc:  # budget, timeout, exit: ends the guest; re-raised by run
                self.raised = exc
                raise
            finally:
                mem.store = None

        return call

    def _unsupported(self, *args: int) -> int:
        return abi.ENOTSUP

    @property
    def m(self) -> abi.Memory:
        assert self.mem is not None
        return self.mem

    # -- args, environment, clocks, randomness, exit ---------------------------------------------

    def args_sizes_get(self, argc: int, size: int) -> int:
        self.m.u32(argc, len(self.argv))
        self.m.u32(size, sum(len(a) + 1 for a in self.argv))
        return 0

    def args_get(self, ptrs: int, buf: int) -> int:
        self.m.strings(self.argv, ptrs, buf)
        return 0

    def environ_sizes_get(self, count: int, size: int) -> int:
        self.m.u32(count, len(self.env))
        self.m.u32(size, self.env_size)
        return 0

    def environ_get(self, ptrs: int, buf: int) -> int:
        self.m.strings(self.env, ptrs, buf)
        return 0

    def clock_res_get(self, clock: int, at: int) -> int:
        self.m.u64(at, 1000)
        return 0

    def clock_time_get(self, clock: int, precision: int, at: int) -> int:
        elapsed = int(self.budget.now * NS)
        if clock == abi.CLOCK_REALTIME:
            self.m.u64(at, self.clock0 * NS + elapsed)
        elif clock == abi.CLOCK_MONOTONIC:
            self.m.u64(at, UPTIME * NS + elapsed)
        else:  # process / thread CPU time: the work done
            self.m.u64(at, self.budget.work * (NS // WORK_PER_SECOND))
        return 0

    def random_get(self, buf: int, size: int) -> int:
        if size:
            self.m.write(buf, self.rng.getrandbits(8 * size).to_bytes(size, "little"))
        return 0

    def proc_exit(self, code: int) -> None:
        raise ProcExit(code)

    def sched_yield(self) -> int:
        return 0

    def poll_oneoff(self, subs: int, events: int, count: int, nevents: int) -> int:
        """Sleeps pass virtual time (a ``timeout`` deadline fires in them); fds are always ready."""
        raw = self.m.read(subs, abi.SUBSCRIPTION.size * count)
        ready: list[bytes] = []
        sleep: tuple[float, int] | None = None
        for i in range(count):
            userdata, tag, clock, timeout, _precision, flags = abi.SUBSCRIPTION.unpack_from(
                raw, i * abi.SUBSCRIPTION.size
            )
            if tag == abi.EVENT_CLOCK:
                seconds = timeout / NS
                if flags & abi.SUBSCRIPTION_CLOCK_ABSTIME:
                    base = self.clock0 if clock == abi.CLOCK_REALTIME else UPTIME
                    seconds -= base + self.budget.now
                if sleep is None or seconds < sleep[0]:
                    sleep = (max(0.0, seconds), userdata)
            else:
                ready.append(abi.EVENT.pack(userdata, 0, tag, 0, 0))
        if not ready and sleep is not None:
            self.budget.sleep(sleep[0])
            ready.append(abi.EVENT.pack(sleep[1], 0, abi.EVENT_CLOCK, 0, 0))
        self.m.write(events, b"".join(ready))
        self.m.u32(nevents, len(ready))
        return 0

    # -- descriptors -----------------------------------------------------------------------------

    def _fd(self, fd: int) -> Fd:
        found = self.fds.get(fd)
        if found is None:
            raise WasiError(abi.EBADF)
        return found

    def _new_fd(self, fd: Fd) -> int:
        n = 3
        while n in self.fds:
            n += 1
        if n > 1024:
            raise WasiError(abi.EMFILE)
        self.fds[n] = fd
        return n

    def fd_prestat_get(self, fd: int, at: int) -> int:
        found = self._fd(fd)
        if not isinstance(found, DirFd) or found.preopen is None:
            return abi.EBADF
        self.m.write(at, abi.PRESTAT.pack(0, len(found.preopen.encode())))
        return 0

    def fd_prestat_dir_name(self, fd: int, at: int, size: int) -> int:
        found = self._fd(fd)
        if not isinstance(found, DirFd) or found.preopen is None:
            return abi.EBADF
        self.m.write(at, found.preopen.encode()[:size])
        return 0

    def fd_fdstat_get(self, fd: int, at: int) -> int:
        found = self._fd(fd)
        flags = abi.FDFLAG_APPEND if found.append else 0
        self.m.write(at, abi.FDSTAT.pack(found.kind, flags, found.rights, found.rights))
        return 0

    def fd_fdstat_set_flags(self, fd: int, flags: int) -> int:
        found = self._fd(fd)
        if isinstance(found, FileFd):
            found.append = bool(flags & abi.FDFLAG_APPEND)
        return 0

    def fd_close(self, fd: int) -> int:
        found = self._fd(fd)
        if isinstance(found, DirFd) and found.preopen is not None:
            return abi.ENOTSUP
        del self.fds[fd]
        if all(other is not found for other in self.fds.values()):  # its last descriptor
            found.close()
        return 0

    def fd_read(self, fd: int, iovs: int, count: int, nread: int) -> int:
        data = self._fd(fd).read(self.m.capacity(iovs, count))
        self.m.u32(nread, self.m.scatter(iovs, count, data))
        return 0

    def fd_pread(self, fd: int, iovs: int, count: int, offset: int, nread: int) -> int:
        data = self._fd(fd).pread(self.m.capacity(iovs, count), offset)
        self.m.u32(nread, self.m.scatter(iovs, count, data))
        return 0

    def fd_write(self, fd: int, iovs: int, count: int, nwritten: int) -> int:
        self.m.u32(nwritten, self._fd(fd).write(self.m.gather(iovs, count)))
        return 0

    def fd_pwrite(self, fd: int, iovs: int, count: int, offset: int, nwritten: int) -> int:
        self.m.u32(nwritten, self._fd(fd).pwrite(self.m.gather(iovs, count), offset))
        return 0

    def fd_seek(self, fd: int, offset: int, whence: int, at: int) -> int:
        self.m.u64(at, self._fd(fd).seek(offset, whence))
        return 0

    def fd_tell(self, fd: int, at: int) -> int:
        self.m.u64(at, self._fd(fd).seek(0, 1))
        return 0

    def fd_filestat_get(self, fd: int, at: int) -> int:
        self.m.write(at, self._fd(fd).stat())
        return 0

    def fd_filestat_set_size(self, fd: int, size: int) -> int:
        found = self._fd(fd)
        if not isinstance(found, FileFd):
            return abi.EINVAL
        found.truncate(size)
        return 0

    def fd_allocate(self, fd: int, offset: int, size: int) -> int:
        found = self._fd(fd)
        if not isinstance(found, FileFd):
            return abi.EINVAL
        if offset + size > len(found.data):
            found.truncate(offset + size)
        return 0

    def fd_filestat_set_times(self, fd: int, atim: int, mtim: int, flags: int) -> int:
        found = self._fd(fd)
        if isinstance(found, FileFd):
            found.commit()
            self._set_mtime(found.node, mtim, flags)
        elif isinstance(found, DirFd):
            self._set_mtime(found.fs.stat(found.path), mtim, flags)
        return 0

    def _set_mtime(self, node: Any, mtim: int, flags: int) -> None:
        if flags & abi.FST_MTIM_NOW:
            node.mtime = self.fs.clock
        elif flags & abi.FST_MTIM:
            node.mtime = mtim // NS

    def fd_sync(self, fd: int) -> int:
        found = self._fd(fd)
        if isinstance(found, FileFd):
            found.commit()
        return 0

    fd_datasync = fd_sync

    def fd_advise(self, fd: int, offset: int, size: int, advice: int) -> int:
        found = self._fd(fd)
        if offset == DUP_MARKER and size == 1:  # dup / dup2: the source
            self.dup_source = found
        elif offset == DUP_MARKER and size == 2 and self.dup_source is not None:  # dup2: the target
            old, self.fds[fd] = found, self.dup_source
            if isinstance(old, DirFd) and old.preopen is not None:
                self.fds[fd] = old
                return abi.EBADF
            if all(other is not old for other in self.fds.values()):
                old.close()
        return 0

    def fd_readdir(self, fd: int, buf: int, size: int, cookie: int, used: int) -> int:
        found = self._fd(fd)
        if not isinstance(found, DirFd):
            return abi.ENOTDIR
        out = bytearray()
        for index, (name, ino, kind) in enumerate(found.entries()[cookie:], start=cookie):
            raw = name.encode("utf-8", "surrogateescape")
            out += abi.DIRENT.pack(index + 1, ino, len(raw), kind) + raw
            if len(out) >= size:
                break
        self.m.write(buf, bytes(out[:size]))
        self.m.u32(used, min(len(out), size))
        return 0

    # -- paths -----------------------------------------------------------------------------------

    def _at(self, fd: int, at: int, size: int) -> tuple[DirFd, str]:
        base = self._fd(fd)
        if not isinstance(base, DirFd):
            raise WasiError(abi.ENOTDIR)
        return base, base.fs.normalize(self.m.text(at, size), base.path)

    def _commit_open(self, fs: VirtualFS, node: Any) -> None:
        """Files written through a descriptor show their new content to every other look."""
        for fd in self.fds.values():
            if isinstance(fd, FileFd) and fd.node is node and fd.fs is fs:
                fd.commit()

    def path_open(self, fd: int, lookup: int, at: int, size: int, oflags: int, rights: int,
                  _inheriting: int, fdflags: int, opened: int) -> int:  # fmt: skip
        base, path = self._at(fd, at, size)
        fs = base.fs
        if fs is self.boot and path == "/dup" and self.dup_source is not None:
            self.m.u32(opened, self._new_fd(self.dup_source))
            return 0
        if fs is self.boot and path == SPAWN and self.spawn is not None:
            self.m.u32(opened, self._new_fd(self._spawn_fd(bool(rights & abi.RIGHT_FD_WRITE))))
            return 0
        if fs is self.fs and path in _STDIO:
            self.m.u32(opened, self._new_fd(self.fds[_STDIO[path]]))
            return 0
        if fs is self.fs and path.startswith("/dev/") and path[5:] in _DEVICES:
            self.m.u32(opened, self._new_fd(DeviceFd(path[5:], self.rng)))
            return 0
        try:
            node = fs.stat(path, follow=bool(lookup & abi.LOOKUP_FOLLOW))
        except FsError as exc:
            if exc.code != "ENOENT" or not oflags & abi.O_CREAT:
                raise
            fs.write(path, "")
            node = fs.stat(path)
        else:
            if oflags & abi.O_CREAT and oflags & abi.O_EXCL:
                return abi.EEXIST
        if isinstance(node, LinkNode):
            return abi.ELOOP
        writable = bool(rights & abi.RIGHT_FD_WRITE)
        if isinstance(node, DirNode):
            if writable or oflags & abi.O_TRUNC:
                return abi.EISDIR
            self.m.u32(opened, self._new_fd(DirFd(fs, path, base.dev)))
            return 0
        if oflags & abi.O_DIRECTORY:
            return abi.ENOTDIR
        assert isinstance(node, FileNode)
        self._commit_open(fs, node)
        handle = FileFd(fs, path, node, base.dev, writable=writable,
                        append=bool(fdflags & abi.FDFLAG_APPEND),
                        truncate=bool(oflags & abi.O_TRUNC) and writable)  # fmt: skip
        self.m.u32(opened, self._new_fd(handle))
        return 0

    def _spawn_fd(self, writable: bool) -> FileFd:
        """The request file of the guest's ``Popen`` (run when closed), or the answer to read."""
        if not writable:
            answer = FileNode(mode=0o600, mtime=0, content=self.spawn_answer)
            return FileFd(self.boot, SPAWN, answer, 2, writable=False, append=False, truncate=False)

        class Request(FileFd):
            def close(inner) -> None:
                data, run = bytes(inner.data), self.spawn
                inner.data = b""
                if data and run is not None:  # None once the guest has ended: nothing more runs
                    self.spawn_answer = run(data)

        return Request(self.boot, SPAWN, FileNode(mode=0o600, mtime=0), 2, writable=True, append=False,
                       truncate=True)  # fmt: skip

    def path_filestat_get(self, fd: int, lookup: int, at: int, size: int, buf: int) -> int:
        base, path = self._at(fd, at, size)
        node = base.fs.stat(path, follow=bool(lookup & abi.LOOKUP_FOLLOW))
        self._commit_open(base.fs, node)
        self.m.write(buf, filestat(base.fs, path, node, base.dev))
        return 0

    def path_filestat_set_times(self, fd: int, lookup: int, at: int, size: int, atim: int, mtim: int,
                                flags: int) -> int:  # fmt: skip
        base, path = self._at(fd, at, size)
        node = base.fs.stat(path, follow=bool(lookup & abi.LOOKUP_FOLLOW))
        self._commit_open(base.fs, node)
        self._set_mtime(node, mtim, flags)
        return 0

    def path_create_directory(self, fd: int, at: int, size: int) -> int:
        base, path = self._at(fd, at, size)
        base.fs.mkdir(path)
        return 0

    def path_remove_directory(self, fd: int, at: int, size: int) -> int:
        base, path = self._at(fd, at, size)
        base.fs.rmdir(path)
        return 0

    def path_unlink_file(self, fd: int, at: int, size: int) -> int:
        base, path = self._at(fd, at, size)
        base.fs.remove(path)
        return 0

    def path_rename(self, fd: int, at: int, size: int, new_fd: int, new_at: int, new_size: int) -> int:
        base, src = self._at(fd, at, size)
        new_base, dst = self._at(new_fd, new_at, new_size)
        if base.fs is not new_base.fs:
            return abi.EXDEV
        base.fs.move(src, dst)
        return 0

    def path_symlink(self, target_at: int, target_size: int, fd: int, at: int, size: int) -> int:
        base, path = self._at(fd, at, size)
        base.fs.symlink(self.m.text(target_at, target_size), path)
        return 0

    def path_readlink(self, fd: int, at: int, size: int, buf: int, buf_size: int, used: int) -> int:
        base, path = self._at(fd, at, size)
        target = base.fs.readlink(path).encode("utf-8", "surrogateescape")[:buf_size]
        self.m.write(buf, target)
        self.m.u32(used, len(target))
        return 0

    def path_link(self, fd: int, lookup: int, at: int, size: int, new_fd: int, new_at: int,
                  new_size: int) -> int:  # fmt: skip
        base, src = self._at(fd, at, size)
        new_base, dst = self._at(new_fd, new_at, new_size)
        if base.fs is not new_base.fs:
            return abi.EXDEV
        if new_base.fs.lexists(dst):
            return abi.EEXIST
        base.fs.copy(src, dst)  # the virtual filesystem has no hard links: a copy stands in
        return 0
