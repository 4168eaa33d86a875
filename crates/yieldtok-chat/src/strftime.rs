//! `strftime_now(format)`: Python's `datetime.now().strftime(format)` with an
//! injectable clock.
//!
//! Python formats a *naive* local datetime through the C library's
//! `strftime` in the C locale (`%z` and `%Z` print nothing, `%f` is the
//! microseconds). This is a self-contained implementation of glibc's
//! conversions and flags (`-`, `_`, `0`, `^`, `#`, field width, `E`/`O`),
//! so no format string can make it fail; unknown conversions are copied
//! through as glibc does.

use std::sync::Arc;

use chrono::{Datelike, NaiveDateTime, Timelike};
use minijinja::{Error, Value};

use super::render_state;

/// Returns "now" as a naive local date-time.
pub type Clock = Arc<dyn Fn() -> NaiveDateTime + Send + Sync>;

/// The default clock: the local wall-clock time.
pub fn system_clock() -> Clock {
    Arc::new(|| chrono::Local::now().naive_local())
}

/// A clock that always returns `t` (for tests and reproducible renders).
pub fn fixed_clock(t: NaiveDateTime) -> Clock {
    Arc::new(move || t)
}

const DAYS: [&str; 7] = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// The template function.
pub fn strftime_now(format: Value) -> Result<Value, Error> {
    let fmt = match format.as_str() {
        Some(s) => s.to_string(),
        None => format.to_string(),
    };
    let now = render_state::with_current(|s| (s.clock)()).unwrap_or_else(|| (system_clock())());
    Ok(Value::from(strftime(&now, &fmt)))
}

/// Python `naive_datetime.strftime(fmt)` on glibc in the C locale.
pub fn strftime(t: &NaiveDateTime, fmt: &str) -> String {
    let mut out = String::with_capacity(fmt.len() + 16);
    let chars: Vec<char> = fmt.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c != '%' {
            out.push(c);
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        // flags
        let mut pad: Option<char> = None; // Some('\0') = no padding
        let mut upper = false;
        let mut swap = false;
        while i < chars.len() {
            match chars[i] {
                '-' => pad = Some('\0'),
                '_' => pad = Some(' '),
                '0' => pad = Some('0'),
                '^' => upper = true,
                '#' => swap = true,
                _ => break,
            }
            i += 1;
        }
        let mut width: Option<usize> = None;
        while i < chars.len() && chars[i].is_ascii_digit() {
            let d = chars[i] as usize - '0' as usize;
            width = Some(width.unwrap_or(0).saturating_mul(10).saturating_add(d).min(1024));
            i += 1;
        }
        if i < chars.len() && (chars[i] == 'E' || chars[i] == 'O') {
            i += 1;
        }
        if i >= chars.len() {
            out.extend(&chars[start..]);
            break;
        }
        let conv = chars[i];
        i += 1;
        match convert(t, conv) {
            Some(Field::Num(n, w, default_pad)) => {
                let s = n.to_string();
                let w = width.unwrap_or(w);
                let p = pad.unwrap_or(default_pad);
                pad_into(&mut out, &s, w, p, true);
            }
            Some(Field::Text(s, lower_on_swap)) => {
                let s = if upper || (swap && !lower_on_swap) {
                    s.to_uppercase()
                } else if swap {
                    s.to_lowercase()
                } else {
                    s
                };
                let p = match pad {
                    Some('0') => '0',
                    Some('\0') => '\0',
                    _ => ' ',
                };
                pad_into(&mut out, &s, width.unwrap_or(0), p, false);
            }
            None => out.extend(&chars[start..i]),
        }
    }
    out
}

enum Field {
    /// value, default width, default pad char
    Num(i64, usize, char),
    /// text, whether `#` lowers it (for %p) instead of uppering it
    Text(String, bool),
}

fn pad_into(out: &mut String, s: &str, width: usize, pad: char, numeric: bool) {
    let len = s.chars().count();
    if pad == '\0' || len >= width {
        out.push_str(s);
        return;
    }
    let (sign, digits) = match s.strip_prefix('-') {
        Some(d) if numeric && pad == '0' => ("-", d),
        _ => ("", s),
    };
    out.push_str(sign);
    for _ in len..width {
        out.push(pad);
    }
    out.push_str(digits);
}

fn iso_week(t: &NaiveDateTime) -> (i32, u32) {
    let w = t.date().iso_week();
    (w.year(), w.week())
}

fn convert(t: &NaiveDateTime, conv: char) -> Option<Field> {
    use Field::*;
    let wd = t.weekday().num_days_from_sunday() as usize;
    let month0 = t.month0() as usize;
    let hour12 = match t.hour() % 12 {
        0 => 12,
        h => h,
    };
    Some(match conv {
        'a' => Text(DAYS[wd][..3].to_string(), false),
        'A' => Text(DAYS[wd].to_string(), false),
        'b' | 'h' => Text(MONTHS[month0][..3].to_string(), false),
        'B' => Text(MONTHS[month0].to_string(), false),
        'c' => Text(strftime(t, "%a %b %e %H:%M:%S %Y"), false),
        'C' => Num((t.year().div_euclid(100)) as i64, 2, '0'),
        'd' => Num(t.day() as i64, 2, '0'),
        'D' => Text(strftime(t, "%m/%d/%y"), false),
        'e' => Num(t.day() as i64, 2, ' '),
        'f' => Num((t.nanosecond() % 1_000_000_000 / 1000) as i64, 6, '0'),
        'F' => Text(strftime(t, "%Y-%m-%d"), false),
        'G' => Num(iso_week(t).0 as i64, 1, '0'),
        'g' => Num(iso_week(t).0.rem_euclid(100) as i64, 2, '0'),
        'H' => Num(t.hour() as i64, 2, '0'),
        'I' => Num(hour12 as i64, 2, '0'),
        'j' => Num(t.ordinal() as i64, 3, '0'),
        'k' => Num(t.hour() as i64, 2, ' '),
        'l' => Num(hour12 as i64, 2, ' '),
        'm' => Num(t.month() as i64, 2, '0'),
        'M' => Num(t.minute() as i64, 2, '0'),
        'n' => Text("\n".into(), false),
        'p' => Text((if t.hour() < 12 { "AM" } else { "PM" }).into(), true),
        'P' => Text((if t.hour() < 12 { "am" } else { "pm" }).into(), false),
        'r' => Text(strftime(t, "%I:%M:%S %p"), false),
        'R' => Text(strftime(t, "%H:%M"), false),
        's' => {
            use chrono::TimeZone;
            let secs = chrono::Local
                .from_local_datetime(t)
                .earliest()
                .map(|d| d.timestamp())
                .unwrap_or_else(|| t.and_utc().timestamp());
            Num(secs, 1, '0')
        }
        'S' => Num(t.second().min(60) as i64, 2, '0'),
        't' => Text("\t".into(), false),
        'T' => Text(strftime(t, "%H:%M:%S"), false),
        'u' => Num(t.weekday().number_from_monday() as i64, 1, '0'),
        'U' => Num(((t.ordinal0() as i64) + 7 - wd as i64) / 7, 2, '0'),
        'V' => Num(iso_week(t).1 as i64, 2, '0'),
        'w' => Num(wd as i64, 1, '0'),
        'W' => Num(((t.ordinal0() as i64) + 7 - t.weekday().num_days_from_monday() as i64) / 7, 2, '0'),
        'x' => Text(strftime(t, "%m/%d/%y"), false),
        'X' => Text(strftime(t, "%H:%M:%S"), false),
        'y' => Num(t.year().rem_euclid(100) as i64, 2, '0'),
        'Y' => Num(t.year() as i64, 1, '0'),
        'z' | 'Z' => Text(String::new(), false),
        '%' => Text("%".into(), false),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::NaiveDate;

    #[test]
    fn python_strftime() {
        let t = NaiveDate::from_ymd_opt(2024, 7, 26).unwrap().and_hms_micro_opt(9, 5, 3, 42).unwrap();
        assert_eq!(strftime(&t, "%d %b %Y"), "26 Jul 2024");
        assert_eq!(strftime(&t, "%Y-%m-%d %H:%M:%S.%f"), "2024-07-26 09:05:03.000042");
        assert_eq!(strftime(&t, "%A %B %-d %e %j %I %p %y"), "Friday July 26 26 208 09 AM 24");
        assert_eq!(
            strftime(&t, "%c|%x|%X|%D|%F|%T|%R"),
            "Fri Jul 26 09:05:03 2024|07/26/24|09:05:03|07/26/24|2024-07-26|09:05:03|09:05"
        );
        assert_eq!(strftime(&t, "[%z][%Z]%%%Q%"), "[][]%%Q%");
        assert_eq!(strftime(&t, "%U %W %V %G %u %w"), "29 30 30 2024 5 5");
        assert_eq!(strftime(&t, "%^a %#p %_H %10Y"), "FRI am  9 0000002024");
    }
}
