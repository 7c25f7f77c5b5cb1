/// The edit distance between two strings, in characters: how many insertions, deletions,
/// substitutions and swaps of two neighbours turn one into the other (`rnu` is one from `run`).
func editDistance(_ source: some StringProtocol, _ target: some StringProtocol) -> Int {
    let source = Array(source)
    let target = Array(target)
    guard !source.isEmpty else { return target.count }
    guard !target.isEmpty else { return source.count }
    // Three rows of the optimal-string-alignment table: two back, one back, current.
    var twoBack = [Int](repeating: 0, count: target.count + 1)
    var previous = Array(0...target.count)
    var current = [Int](repeating: 0, count: target.count + 1)
    for i in 1...source.count {
        current[0] = i
        for j in 1...target.count {
            let substitution = previous[j - 1] + (source[i - 1] == target[j - 1] ? 0 : 1)
            current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            if i > 1, j > 1, source[i - 1] == target[j - 2], source[i - 2] == target[j - 1] {
                current[j] = min(current[j], twoBack[j - 2] + 1)
            }
        }
        (twoBack, previous, current) = (previous, current, twoBack)
    }
    return previous[target.count]
}

/// The candidate closest to `word`, if it is close enough to be what was meant: at most a third of
/// the longer word's length away (at least one edit). Words over 64 characters get no suggestion.
func closestMatch(to word: some StringProtocol, in candidates: [String]) -> String? {
    guard !word.isEmpty, word.count <= 64 else { return nil }
    let scored = candidates.map { (candidate: $0, distance: editDistance(word, $0)) }
    guard let best = scored.min(by: { $0.distance < $1.distance }) else { return nil }
    let allowed = max(1, max(word.count, best.candidate.count) / 3)
    return best.distance <= allowed ? best.candidate : nil
}
