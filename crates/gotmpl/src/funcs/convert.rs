//! Conversions shared by the function library (Sprig's `strval`, spf13/cast's `ToInt64`, …).
