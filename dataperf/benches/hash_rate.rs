//! Content-hash throughput (xxh3-128, twox-hash with run-time AVX2 dispatch) beside memcpy of
//! the same bytes: what hashing a transfer costs relative to the transfer on host offload.
use std::time::Instant;

fn main() {
    for &size in &[256usize, 4 << 10, 256 << 10, 16 << 20] {
        let src: Vec<u8> = (0..size).map(|i| (i * 31 % 251) as u8).collect();
        let mut dst = vec![0u8; size];
        let reps = (256 << 20) / size;
        let t = Instant::now();
        let mut acc = 0u128;
        for _ in 0..reps {
            acc ^= twox_hash::XxHash3_128::oneshot(std::hint::black_box(&src));
        }
        let hash = t.elapsed().as_secs_f64();
        let t = Instant::now();
        for _ in 0..reps {
            dst.copy_from_slice(std::hint::black_box(&src));
            std::hint::black_box(&dst);
        }
        let copy = t.elapsed().as_secs_f64();
        let gb = (size * reps) as f64 / 1e9;
        println!(
            "{size:>9} bytes: hash {:6.1} GB/s, memcpy {:6.1} GB/s, hash/memcpy time {:.2} ({acc:x})",
            gb / hash,
            gb / copy,
            hash / copy
        );
    }
}
