//! The binary's allocator (`src/allocator.rs`) gives plain mimalloc blocks for alignments up to
//! 8 bytes and aligned ones above: every block must have the alignment its layout asks, keep it
//! when resized, and keep its contents.

use rules::allocator::Mi;
use std::alloc::{GlobalAlloc, Layout};

/// Many blocks at once of every size and alignment: one block could be aligned by chance (the
/// first of a page), a run of them only if the allocator asked for it.
#[test]
fn every_block_of_a_run_has_the_alignment_asked() {
    for align in [8usize, 16, 32, 64] {
        for size in [8usize, 24, 40, 56, 72, 88, 200, 1024, 1032, 4096] {
            let layout = Layout::from_size_align(size, align).expect("layout");
            // SAFETY: non-zero sizes; every block is freed with its layout.
            unsafe {
                let blocks: Vec<*mut u8> = (0..64).map(|_| Mi.alloc(layout)).collect();
                for &p in &blocks {
                    assert!(!p.is_null());
                    assert_eq!(p as usize % align, 0, "size {size}, align {align}");
                }
                for p in blocks {
                    Mi.dealloc(p, layout);
                }
            }
        }
    }
}

#[test]
fn blocks_have_the_alignment_asked_and_keep_it_when_resized() {
    for align in [1usize, 2, 4, 8, 16, 32, 64, 4096] {
        for size in [1usize, 3, 8, 15, 16, 24, 40, 100, 1000, 70_000] {
            let layout = Layout::from_size_align(size, align).expect("layout");
            // SAFETY: a non-zero size; each block is written within its size, then freed with
            // its layout.
            unsafe {
                let p = Mi.alloc(layout);
                assert!(!p.is_null());
                assert_eq!(p as usize % align, 0, "size {size}, align {align}");
                p.write_bytes(0xAB, size);
                let q = Mi.realloc(p, layout, size * 3);
                assert!(!q.is_null());
                assert_eq!(q as usize % align, 0, "resized: size {size}, align {align}");
                assert!((0..size).all(|i| *q.add(i) == 0xAB));
                Mi.dealloc(q, Layout::from_size_align(size * 3, align).expect("layout"));
                let z = Mi.alloc_zeroed(layout);
                assert_eq!(z as usize % align, 0);
                assert!((0..size).all(|i| *z.add(i) == 0));
                Mi.dealloc(z, layout);
            }
        }
    }
}
