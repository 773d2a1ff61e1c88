//! A child's message to its parent, its frames cut to the gate's limit (`process::gate`): any
//! frame larger than `MAX_FRAME` goes in pieces, after a `Pieces` envelope that counts them.

use super::envelope::Envelope;
use crate::process::gate::MAX_FRAME;

/// The first byte of a `Pieces` envelope: postcard writes the variant's index first, so other
/// messages are told apart without decoding them.
const PIECES_INDEX: u8 = 13;

fn is_pieces(frame: &[u8]) -> bool {
    frame.first() == Some(&PIECES_INDEX)
}

/// A message's frames, any larger than `MAX_FRAME` cut into pieces: then a `Pieces` envelope
/// with each frame's count of pieces comes first.
pub fn split(frames: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
    if frames.iter().all(|f| f.len() <= MAX_FRAME) {
        return frames;
    }
    let counts: Vec<u32> = frames
        .iter()
        .map(|f| f.len().div_ceil(MAX_FRAME).max(1) as u32)
        .collect();
    let mut out = vec![Envelope::Pieces { counts }.encode()];
    for f in frames {
        if f.len() <= MAX_FRAME {
            out.push(f);
        } else {
            out.extend(f.chunks(MAX_FRAME).map(<[u8]>::to_vec));
        }
    }
    out
}

/// The frames `split` cut, put back together; None when the pieces do not add up.
pub fn join(mut frames: Vec<Vec<u8>>) -> Option<Vec<Vec<u8>>> {
    if !frames.first().is_some_and(|f| is_pieces(f)) {
        return Some(frames);
    }
    let Some(Envelope::Pieces { counts }) = Envelope::decode(&frames[0]) else {
        return None;
    };
    let total = counts.iter().try_fold(0usize, |acc, &c| acc.checked_add(c as usize))?;
    if counts.contains(&0) || total != frames.len() - 1 {
        return None;
    }
    let mut pieces = frames.drain(1..);
    let mut out = Vec::with_capacity(counts.len());
    for c in counts {
        let mut first = pieces.next()?;
        if c > 1 {
            let rest: Vec<Vec<u8>> = pieces.by_ref().take(c as usize - 1).collect();
            first.reserve_exact(rest.iter().map(Vec::len).sum());
            for r in rest {
                first.extend_from_slice(&r);
            }
        }
        out.push(first);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_are_told_by_their_first_byte() {
        assert_eq!(Envelope::Pieces { counts: vec![2] }.encode()[0], PIECES_INDEX);
    }

    #[test]
    fn frames_split_and_join_back() {
        let small = vec![Envelope::Data.encode(), vec![7u8; 10]];
        assert_eq!(split(small.clone()), small);
        assert_eq!(join(small.clone()), Some(small));
        let big = vec![
            Envelope::Data.encode(),
            (0..MAX_FRAME * 2 + 5).map(|i| i as u8).collect::<Vec<u8>>(),
            vec![1, 2, 3],
        ];
        let cut = split(big.clone());
        assert_eq!(cut.len(), 1 + 1 + 3 + 1);
        assert!(cut.iter().all(|f| f.len() <= MAX_FRAME));
        assert_eq!(join(cut.clone()), Some(big));
        let mut short = cut;
        short.pop();
        assert_eq!(join(short), None);
    }
}
