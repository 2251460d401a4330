//! The module's allocator: dlmalloc (what Rust's standard library uses on
//! `wasm32-unknown-unknown`), with memory grown in larger steps.
//!
//! The standard library's dlmalloc grows the WebAssembly memory by what
//! each request needs (64 KiB pages, a little more for its bookkeeping), so
//! a call that builds hundreds of megabytes of values grows memory thousands
//! of times, and every `memory.grow` is a call into the JS engine (V8 also
//! replaces the memory's `ArrayBuffer` each time): profiled, 1.7 s of a
//! 100,000-pod call. Here each growth is at least an eighth of the memory
//! so far (and 1 MiB), so memory grows a few dozen times instead; the peak
//! is at most an eighth above what was asked for. When the larger step does
//! not fit, exactly what is needed is asked for.

use std::alloc::{GlobalAlloc, Layout};
use std::cell::UnsafeCell;

use core::arch::wasm32;

const PAGE: usize = 64 * 1024;

/// Grow the memory by `pages`; the base address of the new pages.
fn grow(pages: usize) -> Option<usize> {
    let prev = wasm32::memory_grow(0, pages);
    (prev != usize::MAX).then(|| prev * PAGE)
}

struct Geometric;

// SAFETY: `alloc` returns fresh pages of the module's memory that nothing
// else uses (only this allocator grows the memory), of the size it reports.
unsafe impl dlmalloc::Allocator for Geometric {
    fn alloc(&self, size: usize) -> (*mut u8, usize, u32) {
        let current = wasm32::memory_size(0) * PAGE;
        let needed = size.div_ceil(PAGE);
        let step = size.max(current / 8).max(1 << 20).div_ceil(PAGE);
        let (base, pages) = match grow(step) {
            Some(base) => (base, step),
            None => match grow(needed) {
                Some(base) => (base, needed),
                None => return (std::ptr::null_mut(), 0, 0),
            },
        };
        let bytes = pages * PAGE;
        // The last bytes of the address space are not handed out: a
        // pointer one past the end must not wrap to 0 (as dlmalloc's own
        // wasm allocator does).
        let bytes = if base.wrapping_add(bytes) == 0 {
            bytes - 16
        } else {
            bytes
        };
        (base as *mut u8, bytes, 0)
    }

    fn remap(&self, _ptr: *mut u8, _old: usize, _new: usize, _can_move: bool) -> *mut u8 {
        std::ptr::null_mut()
    }

    fn free_part(&self, _ptr: *mut u8, _old: usize, _new: usize) -> bool {
        false
    }

    fn free(&self, _ptr: *mut u8, _size: usize) -> bool {
        false
    }

    fn can_release_part(&self, _flags: u32) -> bool {
        false
    }

    fn allocates_zeros(&self) -> bool {
        true
    }

    fn page_size(&self) -> usize {
        PAGE
    }
}

/// The global allocator of the module.
pub struct Allocator(UnsafeCell<dlmalloc::Dlmalloc<Geometric>>);

// SAFETY: this module is built without threads (`wasm32-unknown-unknown`
// without the atomics feature): there is one thread, so no two calls into
// the allocator overlap.
unsafe impl Sync for Allocator {}

impl Allocator {
    pub const fn new() -> Self {
        Allocator(UnsafeCell::new(dlmalloc::Dlmalloc::new_with_allocator(
            Geometric,
        )))
    }
}

// SAFETY: each method forwards to dlmalloc with the layout it was given;
// one thread (see above) means the exclusive borrow is never shared.
unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        unsafe { (*self.0.get()).malloc(layout.size(), layout.align()) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        unsafe { (*self.0.get()).calloc(layout.size(), layout.align()) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { (*self.0.get()).free(ptr, layout.size(), layout.align()) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        unsafe { (*self.0.get()).realloc(ptr, layout.size(), layout.align(), new_size) }
    }
}
