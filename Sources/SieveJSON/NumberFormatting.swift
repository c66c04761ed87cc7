/// Formats a coordinate or number for text output (WKT, JSON): whole numbers below 2^53 without
/// a fraction (`12`), everything else in Swift's shortest form that reads back to the same
/// double (`0.1`, `1e-05`, `1.7976931348623157e+308`). Reading the text back gives the same
/// `Double`, bit for bit.
package func formatNumber(_ value: Double) -> String {
    if value == value.rounded(), abs(value) < 9_007_199_254_740_992 {
        if value == 0 { return value.sign == .minus ? "-0" : "0" }
        return String(Int64(value))
    }
    return "\(value)"
}
