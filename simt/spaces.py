"""Address spaces of the emulated GPU, as windows of one 64-bit generic address space.

Pointers are plain 64-bit integers, so casts and pointer arithmetic work as in CUDA.
Global allocations live in [GLOBAL_BASE, SHARED_BASE), each 256-byte aligned like
cudaMalloc; a pointer into the shared window is an offset in the *current block's*
shared memory, a pointer into the local window an offset in the current thread's frame.
Address 0 (NULL) and the gaps between allocations belong to nothing.
"""
GLOBAL_BASE = 1 << 32
SHARED_BASE = 1 << 48
LOCAL_BASE = 1 << 52
ALLOC_ALIGN = 256
SHARED_ALIGN = 16


def space_of(addr: int) -> str:
    if addr >= LOCAL_BASE:
        return "local"
    if addr >= SHARED_BASE:
        return "shared"
    return "global"
