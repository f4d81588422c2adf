//! The allocator of the `rules` binary and of `cargo bench`: mimalloc, asked for plain memory
//! whenever the alignment a value needs is at most 8 bytes, which every block mimalloc hands out
//! has, and for a small one through its small-block call. (The `mimalloc` crate's allocator
//! always makes the aligned call, which works the alignment out again on every allocation;
//! nearly all of the interpreter's need only 8.)

use core::alloc::{GlobalAlloc, Layout};
use core::ffi::c_void;
use libmimalloc_sys as mi;

/// mimalloc, with plain calls for alignments it always gives.
pub struct Mi;

/// Every block mimalloc hands out is aligned to at least this (its size classes are multiples
/// of the word size).
const PLAIN_ALIGN: usize = 8;

/// mimalloc's small blocks: at most 128 words (`MI_SMALL_SIZE_MAX`), taken from its per-size
/// free lists without looking the size class up.
const SMALL_MAX: usize = 128 * core::mem::size_of::<*mut c_void>();

extern "C" {
    // In the mimalloc library `libmimalloc-sys` builds and links (its binding sits behind the
    // crate's `extended` feature, which would bring a dependency for this one declaration).
    fn mi_malloc_small(size: usize) -> *mut c_void;
}

// SAFETY: every block comes from mimalloc and goes back to it (`mi_free` takes blocks from any
// of its calls; `mi_malloc_small` is `mi_malloc` for sizes it knows are small); a plain block, aligned to `PLAIN_ALIGN`, is given only for layouts that need no more, and
// a block keeps its alignment when resized with the same kind of call.
unsafe impl GlobalAlloc for Mi {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.align() <= PLAIN_ALIGN {
            if layout.size() <= SMALL_MAX {
                return mi_malloc_small(layout.size()) as *mut u8;
            }
            mi::mi_malloc(layout.size()) as *mut u8
        } else {
            mi::mi_malloc_aligned(layout.size(), layout.align()) as *mut u8
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if layout.align() <= PLAIN_ALIGN {
            mi::mi_zalloc(layout.size()) as *mut u8
        } else {
            mi::mi_zalloc_aligned(layout.size(), layout.align()) as *mut u8
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        mi::mi_free(ptr as *mut c_void);
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if layout.align() <= PLAIN_ALIGN {
            mi::mi_realloc(ptr as *mut c_void, new_size) as *mut u8
        } else {
            mi::mi_realloc_aligned(ptr as *mut c_void, new_size, layout.align()) as *mut u8
        }
    }
}
