//! Fuzzes image's decoders at their entry point, the functions `image.load` and
//! `image.decompress*` reach after reading the bytes: the first input byte picks PNG, JPEG or
//! PPM/PGM (and whether to ask only for the size); the rest is the file. An error is fine; a
//! crash, hang or huge allocation (a header claiming more than the readers accept) is a finding.

#![no_main]

use libfuzzer_sys::fuzz_target;
use luatorch::image::kernels::codec::{jpeg, png, ppm};

fuzz_target!(|data: &[u8]| {
    let Some((&pick, file)) = data.split_first() else { return };
    let size_only = pick & 4 != 0;
    let decoded = match (pick % 3, size_only) {
        (0, false) => png::decode(file).map(|d| d.channels * d.height * d.width),
        (1, false) => jpeg::decode(file).map(|d| d.channels * d.height * d.width),
        (_, false) => ppm::decode(file).map(|d| d.channels * d.height * d.width),
        (0, true) => png::size(file).map(|(c, h, w)| c * h * w),
        (1, true) => jpeg::size(file).map(|(c, h, w)| c * h * w),
        (_, true) => ppm::size(file).map(|(c, h, w)| c.saturating_mul(h).saturating_mul(w)),
    };
    if let Ok(n) = decoded {
        // What a decode returns was checked against the readers' pixel limit.
        assert!(size_only || n as u64 <= 4 * luatorch::image::kernels::codec::MAX_PIXELS);
    }
});
