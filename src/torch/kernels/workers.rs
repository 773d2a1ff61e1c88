//! Work spread over threads for the nn kernels. A pass cuts its work into parts (usually runs of
//! images) that touch disjoint memory; each part runs on its own scoped thread, the first on the
//! caller's, so a pass of one part starts no thread at all.

/// How many threads a pass may use: `torch.setnumthreads`'s count, which OpenBLAS follows too.
pub fn threads() -> usize {
    super::blas::openblas::num_threads().max(1)
}

/// How many parts to cut `items` items of `work` units each into: at most `threads()` and at
/// most one per item, and one only when the whole pass is too small to pay for starting a thread
/// (a few tens of microseconds).
pub fn parts(items: usize, work: usize) -> usize {
    // About 50 microseconds of multiply-adds per extra thread.
    const MIN_WORK: usize = 1 << 19;
    let by_work = (items.saturating_mul(work) / MIN_WORK).max(1);
    threads().min(items).min(by_work).max(1)
}

/// The bounds of part `i` of `n` items cut into `parts` near-equal runs.
pub fn bounds(n: usize, parts: usize, i: usize) -> std::ops::Range<usize> {
    (n * i / parts)..(n * (i + 1) / parts)
}

/// Runs `f` on every part, all at once (one thread each, the caller's for the first). Returns
/// once every part is done; a part that panics panics the caller.
pub fn run<P: Send>(parts: Vec<P>, f: impl Fn(P) + Sync) {
    let mut parts = parts.into_iter();
    let Some(first) = parts.next() else { return };
    let f = &f;
    std::thread::scope(|s| {
        for p in parts {
            s.spawn(move || f(p));
        }
        f(first);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_cover_every_item_once() {
        for n in 0..20 {
            for p in 1..5 {
                let mut next = 0;
                for i in 0..p {
                    let r = bounds(n, p, i);
                    assert_eq!(r.start, next);
                    next = r.end;
                }
                assert_eq!(next, n);
            }
        }
    }

    #[test]
    fn every_part_runs() {
        let mut out = vec![0usize; 10];
        let chunks: Vec<(usize, &mut [usize])> = out.chunks_mut(3).enumerate().collect();
        run(chunks, |(i, c)| c.iter_mut().for_each(|v| *v = i + 1));
        assert_eq!(out, vec![1, 1, 1, 2, 2, 2, 3, 3, 3, 4]);
    }
}
