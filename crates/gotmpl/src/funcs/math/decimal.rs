//! The slice of shopspring/decimal that Sprig's float math (`addf`, `subf`, `mulf`, `divf`,
//! `add1f`) goes through: `NewFromFloat`, exact `Add`/`Sub`/`Mul`, `Div` rounded half away from
//! zero at 16 decimal places (`DivisionPrecision`), and `Float64` (the nearest float64 of the
//! exact rational). That is why `addf 0.1 0.2` is `0.3` and `divf 10 3` is `3.3333333333333335`.

use num_bigint::{BigInt, Sign};

use crate::value::FuncError;

/// shopspring/decimal's `DivisionPrecision`.
const DIVISION_PRECISION: i64 = 16;

/// `value × 10^exp`.
#[derive(Clone, Debug)]
pub(super) struct Decimal {
    value: BigInt,
    exp: i64,
}

fn pow10(n: i64) -> BigInt {
    // Callers keep n small relative to the operands' exponents; u32 bounds the work anyway.
    BigInt::from(10u32).pow(u32::try_from(n).unwrap_or(u32::MAX))
}

impl Decimal {
    /// `decimal.NewFromFloat`: the shortest decimal that reads back as `f`. NaN and infinities
    /// panic in Go with `Cannot create a Decimal from %v`.
    pub(super) fn from_f64(f: f64) -> Result<Decimal, FuncError> {
        if f.is_nan() || f.is_infinite() {
            return Err(FuncError::msg(format!(
                "Cannot create a Decimal from {}",
                crate::fmt::format_float(f, 'g', -1)
            )));
        }
        if f == 0.0 {
            return Ok(Decimal { value: BigInt::from(0), exp: 0 });
        }
        // Rust's `{:e}` prints the shortest round-tripping digits, as Go's shortest formatting
        // (and shopspring's roundShortest) does.
        let text = format!("{f:e}");
        let (mant, exp) = text.split_once('e').unwrap_or((&text, "0"));
        let exp: i64 = exp.parse().unwrap_or(0);
        let neg = mant.starts_with('-');
        let digits: String = mant.chars().filter(char::is_ascii_digit).collect();
        let frac_len = mant.split_once('.').map_or(0, |(_, frac)| frac.len()) as i64;
        let mut value: BigInt = digits.parse().unwrap_or_default();
        if neg {
            value = -value;
        }
        Ok(Decimal { value, exp: exp - frac_len })
    }

    fn rescaled(&self, exp: i64) -> BigInt {
        // exp <= self.exp always.
        &self.value * pow10(self.exp - exp)
    }

    pub(super) fn add(&self, o: &Decimal) -> Decimal {
        let exp = self.exp.min(o.exp);
        Decimal { value: self.rescaled(exp) + o.rescaled(exp), exp }
    }

    pub(super) fn sub(&self, o: &Decimal) -> Decimal {
        let exp = self.exp.min(o.exp);
        Decimal { value: self.rescaled(exp) - o.rescaled(exp), exp }
    }

    pub(super) fn mul(&self, o: &Decimal) -> Decimal {
        Decimal { value: &self.value * &o.value, exp: self.exp + o.exp }
    }

    /// `Div` = `DivRound(d2, 16)`: truncated quotient at 10^-16, then half away from zero.
    pub(super) fn div(&self, o: &Decimal) -> Result<Decimal, FuncError> {
        if o.value.sign() == Sign::NoSign {
            return Err(FuncError::msg("decimal division by 0"));
        }
        let e = self.exp - o.exp + DIVISION_PRECISION;
        let (aa, bb) =
            if e < 0 { (self.value.clone(), &o.value * pow10(-e)) } else { (&self.value * pow10(e), o.value.clone()) };
        let mut q = &aa / &bb;
        let r = &aa % &bb;
        let twice_r: BigInt = r.magnitude().clone().into();
        let twice_r = twice_r * 2u32;
        let abs_bb: BigInt = bb.magnitude().clone().into();
        if twice_r >= abs_bb {
            let neg = (self.value.sign() == Sign::Minus) != (o.value.sign() == Sign::Minus);
            if neg {
                q -= 1;
            } else {
                q += 1;
            }
        }
        Ok(Decimal { value: q, exp: -DIVISION_PRECISION })
    }

    /// `Float64()`: `big.Rat.Float64`, the nearest float64 (ties to even) of the exact value.
    /// Rust's float parser is correctly rounded, so the decimal text gives the same answer.
    pub(super) fn to_f64(&self) -> f64 {
        if self.value.sign() == Sign::NoSign {
            return 0.0;
        }
        format!("{}e{}", self.value, self.exp).parse().unwrap_or(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(f: f64) -> Decimal {
        Decimal::from_f64(f).unwrap()
    }

    #[test]
    fn decimal_arithmetic_is_exact() {
        assert_eq!(d(0.1).add(&d(0.2)).to_f64(), 0.3);
        assert_eq!(d(1.1).mul(&d(1.1)).to_f64(), 1.21);
        assert_eq!(d(0.3).sub(&d(0.1)).to_f64(), 0.2);
        assert_eq!(d(10.0).div(&d(3.0)).unwrap().to_f64(), 3.3333333333333335);
        assert_eq!(d(1.0).div(&d(3.0)).unwrap().to_f64(), 0.3333333333333333);
        assert_eq!(d(2.0).div(&d(3.0)).unwrap().to_f64(), 0.6666666666666667);
        assert_eq!(d(-2.0).div(&d(3.0)).unwrap().to_f64(), -0.6666666666666667);
        assert_eq!(d(1e20).add(&d(1.0)).to_f64(), 1e20);
        assert!(d(1.0).div(&d(0.0)).is_err());
        assert!(Decimal::from_f64(f64::NAN).is_err());
    }
}
