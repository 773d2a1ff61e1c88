//! Element types on the wire: one byte, the type's place in `DType::ALL`. Both ends run the same
//! binary, so the list is the contract.

use crate::error::{Error, Result};
use crate::torch::base::dtype::DType;

pub fn code(d: DType) -> u8 {
    DType::ALL.iter().position(|x| *x == d).unwrap_or(0) as u8
}

pub fn of(code: u8) -> Result<DType> {
    DType::ALL
        .get(code as usize)
        .copied()
        .ok_or_else(|| Error::corrupt(format!("unknown element type {code}")))
}

/// A `DType` field of a serde-encoded descriptor, as its code (`#[serde(with = "dtype")]`).
pub fn serialize<S: serde::Serializer>(d: &DType, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_u8(code(*d))
}

pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<DType, D::Error> {
    let c = <u8 as serde::Deserialize>::deserialize(d)?;
    of(c).map_err(serde::de::Error::custom)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_unknown_ones_are_refused() {
        for d in DType::ALL {
            assert_eq!(of(code(d)).unwrap(), d);
        }
        let e = of(200).unwrap_err();
        assert_eq!(e.kind(), crate::error::Kind::Corrupt);
        assert_eq!(e.message(), "unknown element type 200");
    }
}
