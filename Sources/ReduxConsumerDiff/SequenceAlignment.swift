import ReduxConsumer

/// Lines up the elements of two sequences so that insertions and removals are found as such,
/// instead of as a change at every later index.
///
/// The common prefix and suffix are matched first, in linear time. The middle is aligned with
/// Myers' shortest edit script, O((n + m) · d) for d edits, which is abandoned once it has done
/// `budget` units of work beyond one walk of the middle (n + m units: the matching runs between
/// a few edits in long sequences, such as an element removed at the front and one added at the
/// end, are walked in full); the middle is then matched index by index, so large and very
/// different sequences stay near linear. Runs of removals and insertions between two matches
/// are paired up into ``Edit/changed(old:new:)`` edits, which the differ compares element by
/// element.
enum SequenceAlignment {
    /// How well two elements match.
    enum Match {
        /// Known equal (`==`): nothing to compare.
        case exact
        /// Probably equal (same rendering): aligned, but still compared.
        case similar
        case different
    }

    /// One step of the alignment, by index into the old and the new sequence.
    enum Edit: Equatable {
        case same(old: Int, new: Int, isExact: Bool)
        case changed(old: Int, new: Int)
        case removed(old: Int)
        case inserted(new: Int)
    }

    static let defaultBudget = 100_000

    static func edits(
        oldCount: Int,
        newCount: Int,
        budget: Int = defaultBudget,
        match: (_ old: Int, _ new: Int) -> Match
    ) -> [Edit] {
        var prefix: [Edit] = []
        while prefix.count < min(oldCount, newCount) {
            let index = prefix.count
            let result = match(index, index)
            guard result != .different else {
                break
            }
            prefix.append(.same(old: index, new: index, isExact: result == .exact))
        }
        var suffix: [Edit] = []
        while suffix.count < min(oldCount, newCount) - prefix.count {
            let old = oldCount - 1 - suffix.count
            let new = newCount - 1 - suffix.count
            let result = match(old, new)
            guard result != .different else {
                break
            }
            suffix.append(.same(old: old, new: new, isExact: result == .exact))
        }
        let oldMiddle = prefix.count..<(oldCount - suffix.count)
        let newMiddle = prefix.count..<(newCount - suffix.count)
        let middle =
            shortestEditScript(old: oldMiddle, new: newMiddle, budget: budget, match: match)
            ?? indexByIndex(old: oldMiddle, new: newMiddle)
        return prefix + pairedUp(middle) + suffix.reversed()
    }

    /// Myers' greedy forward algorithm, keeping each round's frontier for the backtrack.
    ///
    /// Each step along a matching run counts as a unit of work, and so does each diagonal of
    /// each round: the run between two edits far apart costs its length once, so the limit is
    /// `budget` plus the middle's length (a fixed `budget` alone gave up on two edits in a
    /// sequence of that length, and matched every element after them index by index).
    ///
    /// - Returns: `nil` when the work exceeds `budget` plus `old.count + new.count`.
    private static func shortestEditScript(
        old: Range<Int>,
        new: Range<Int>,
        budget: Int,
        match: (Int, Int) -> Match
    ) -> [Edit]? {
        let oldCount = old.count
        let newCount = new.count
        guard oldCount > 0, newCount > 0 else {
            return indexByIndex(old: old, new: new)
        }
        let maxEdits = oldCount + newCount
        let offset = maxEdits + 1
        var frontier = [Int](repeating: 0, count: 2 * maxEdits + 3)
        var trace: [[Int]] = []
        var work = 0
        let limit = budget + maxEdits
        for edits in 0...maxEdits {
            trace.append(Array(frontier[(offset - edits - 1)...(offset + edits + 1)]))
            for diagonal in stride(from: -edits, through: edits, by: 2) {
                var x: Int
                if diagonal == -edits
                    || (diagonal != edits && frontier[offset + diagonal - 1] < frontier[offset + diagonal + 1])
                {
                    x = frontier[offset + diagonal + 1]
                } else {
                    x = frontier[offset + diagonal - 1] + 1
                }
                var y = x - diagonal
                while x < oldCount, y < newCount {
                    let result = match(old.lowerBound + x, new.lowerBound + y)
                    guard result != .different else {
                        break
                    }
                    x += 1
                    y += 1
                    work += 1
                }
                frontier[offset + diagonal] = x
                work += 1
                if x >= oldCount, y >= newCount {
                    return backtrack(trace, old: old, new: new)
                }
                if work > limit {
                    return nil
                }
            }
        }
        return nil
    }

    /// Walks the recorded frontiers from the end back to the start, collecting the edit script.
    ///
    /// Matches found here are not marked exact: the differ compares them again, which costs one
    /// `==` for equal elements and keeps this step free of per-pair bookkeeping.
    private static func backtrack(_ trace: [[Int]], old: Range<Int>, new: Range<Int>) -> [Edit] {
        var script: [Edit] = []
        var x = old.count
        var y = new.count
        for edits in trace.indices.reversed() {
            // `trace[edits]` holds diagonals -edits-1 ... edits+1 of the frontier before round `edits`.
            let frontier = trace[edits]
            func reach(_ diagonal: Int) -> Int { frontier[diagonal + edits + 1] }
            let diagonal = x - y
            let previousDiagonal =
                (diagonal == -edits || (diagonal != edits && reach(diagonal - 1) < reach(diagonal + 1)))
                ? diagonal + 1 : diagonal - 1
            let previousX = edits == 0 ? 0 : reach(previousDiagonal)
            let previousY = edits == 0 ? 0 : previousX - previousDiagonal
            while x > previousX, y > previousY {
                x -= 1
                y -= 1
                script.append(.same(old: old.lowerBound + x, new: new.lowerBound + y, isExact: false))
            }
            guard edits > 0 else {
                break
            }
            if x == previousX {
                script.append(.inserted(new: new.lowerBound + previousY))
            } else {
                script.append(.removed(old: old.lowerBound + previousX))
            }
            x = previousX
            y = previousY
        }
        return script.reversed()
    }

    private static func indexByIndex(old: Range<Int>, new: Range<Int>) -> [Edit] {
        let common = min(old.count, new.count)
        let changed = (0..<common).map { Edit.changed(old: old.lowerBound + $0, new: new.lowerBound + $0) }
        let removed = old.dropFirst(common).map { Edit.removed(old: $0) }
        let inserted = new.dropFirst(common).map { Edit.inserted(new: $0) }
        return changed + removed + inserted
    }

    /// Turns each run of removals and insertions between two matches into changes, pairing the
    /// k-th removed element with the k-th inserted one; the surplus stays removed or inserted.
    private static func pairedUp(_ script: [Edit]) -> [Edit] {
        var result: [Edit] = []
        var removed: [Int] = []
        var inserted: [Int] = []
        func flush() {
            let common = min(removed.count, inserted.count)
            for offset in 0..<common {
                result.append(.changed(old: removed[offset], new: inserted[offset]))
            }
            result += removed.dropFirst(common).map { Edit.removed(old: $0) }
            result += inserted.dropFirst(common).map { Edit.inserted(new: $0) }
            removed.removeAll()
            inserted.removeAll()
        }
        for edit in script {
            switch edit {
            case .removed(let old):
                removed.append(old)
            case .inserted(let new):
                inserted.append(new)
            case .same, .changed:
                flush()
                result.append(edit)
            }
        }
        flush()
        return result
    }
}
