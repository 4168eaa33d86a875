//! Python's `float.__repr__` (which is also `str(float)` in Python 3).
//!
//! Owns how every non-integer number is printed: by the output formatter
//! (`{{ 0.1 }}`), inside printed containers (`{{ [1e-07] }}`) and by the
//! `tojson` clone. Python prints the shortest string that round-trips, in
//! positional notation when the decimal exponent is in `[-4, 16)` and as
//! `d.ddde±XX` otherwise.

/// Python `repr(x)` for a float: `1.0`, `0.1`, `1e-07`, `1e+16`, `-0.0`,
/// `inf`, `-inf`, `nan`.
pub fn repr(x: f64) -> String {
    if x.is_nan() {
        return "nan".to_string();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-inf".into() } else { "inf".into() };
    }
    let mut out = String::with_capacity(24);
    write_finite(&mut out, x);
    out
}

/// Python `json.dumps` spelling of a float: like [`repr`] but `NaN`,
/// `Infinity` and `-Infinity` for the non-finite values (allow_nan=True).
pub fn json_repr(x: f64) -> String {
    if x.is_nan() {
        return "NaN".to_string();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-Infinity".into() } else { "Infinity".into() };
    }
    let mut out = String::with_capacity(24);
    write_finite(&mut out, x);
    out
}

fn write_finite(out: &mut String, x: f64) {
    // Rust's `{:e}` gives the shortest round-trip digits, like Python's
    // `repr` ("r" mode of `PyOS_double_to_string`).
    let sci = format!("{:e}", x);
    let (mantissa, exp) = sci.split_once('e').expect("{:e} always has an exponent");
    let exp: i32 = exp.parse().expect("valid exponent");
    let (negative, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    if negative {
        out.push('-');
    }
    if x == 0.0 {
        out.push_str("0.0");
        return;
    }
    if (-4..16).contains(&exp) {
        if exp < 0 {
            out.push_str("0.");
            for _ in 0..(-exp - 1) {
                out.push('0');
            }
            out.push_str(&digits);
        } else {
            let int_len = exp as usize + 1;
            if digits.len() <= int_len {
                out.push_str(&digits);
                for _ in digits.len()..int_len {
                    out.push('0');
                }
                out.push_str(".0");
            } else {
                out.push_str(&digits[..int_len]);
                out.push('.');
                out.push_str(&digits[int_len..]);
            }
        }
    } else {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        let a = exp.unsigned_abs();
        if a < 10 {
            out.push('0');
        }
        out.push_str(&a.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_float_repr() {
        let cases: &[(f64, &str)] = &[
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (-1.5, "-1.5"),
            (0.1, "0.1"),
            (0.7, "0.7"),
            (1e-7, "1e-07"),
            (1e-4, "0.0001"),
            (1.5e-5, "1.5e-05"),
            (0.00012345, "0.00012345"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (9999999999999998.0, "9999999999999998.0"),
            (1e20, "1e+20"),
            (1.2345e20, "1.2345e+20"),
            (123456789.125, "123456789.125"),
            (1e100, "1e+100"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
            (2.5, "2.5"),
            (100.0, "100.0"),
            (0.30000000000000004, "0.30000000000000004"),
            (f64::NAN, "nan"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
        ];
        for (x, want) in cases {
            assert_eq!(repr(*x), *want, "repr({x:?})");
        }
        assert_eq!(json_repr(f64::NAN), "NaN");
        assert_eq!(json_repr(f64::INFINITY), "Infinity");
        assert_eq!(json_repr(f64::NEG_INFINITY), "-Infinity");
        assert_eq!(json_repr(1e-7), "1e-07");
    }
}
