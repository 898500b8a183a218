/// The known key an unknown key was probably meant to be: a typo of a key that is valid at its place
/// changes what is generated without a word (`"nulable": true` leaves the column required), so such
/// a key is an error that names the key meant.
enum KeySuggestion {
    /// Edits (insertions, deletions, substitutions, swaps of neighbours) within which an unknown key is
    /// taken for a typo of `known`: two, and one for a key of five letters or fewer (two edits turn
    /// `id` into `to` and `date` into `name`).
    static func maximumDistance(from known: String) -> Int { known.count > 5 ? 2 : 1 }

    /// The known key (snake_case) closest to `key` (as written) when `key` is within
    /// ``maximumDistance(from:)`` edits of it or spells it in another case convention (`PROPERTY_TYPE`,
    /// `default-value`); nil when none is. Spelled in camelCase when `key` is camelCase.
    static func nearest(to key: String, among known: [String]) -> String? {
        let normalized = ObjectReader.normalize(key)
        let letters = conventionFree(key)
        var best: (key: String, distance: Int)?
        for candidate in known {
            let distance =
                conventionFree(candidate) == letters ? 0 : editDistance(normalized, candidate, limit: maximumDistance(from: candidate))
            guard let distance, distance < best?.distance ?? .max else { continue }
            best = (candidate, distance)
        }
        return best.map { isCamelCase(key) ? Naming.propertyName($0.key) : $0.key }
    }

    /// The letters and digits of a key, lowercased: the same for every case convention of one key.
    static func conventionFree(_ key: String) -> String {
        String(key.lowercased().filter { $0 != "_" && $0 != "-" })
    }

    static func isCamelCase(_ key: String) -> Bool {
        key.first?.isLowercase == true && key.contains(where: \.isUppercase) && !key.contains("_") && !key.contains("-")
    }

    /// The optimal-string-alignment distance (Damerau–Levenshtein without edits of a swapped pair)
    /// between `a` and `b`, or nil when it exceeds `limit`.
    static func editDistance(_ a: String, _ b: String, limit: Int) -> Int? {
        let a = Array(a), b = Array(b)
        if abs(a.count - b.count) > limit { return nil }
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        // Three rows: the one before the previous (for swaps), the previous and the current.
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            var rowMinimum = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { value = min(value, before[j - 2] + 1) }
                current[j] = value
                rowMinimum = min(rowMinimum, value)
            }
            if rowMinimum > limit { return nil }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count] <= limit ? previous[b.count] : nil
    }
}
