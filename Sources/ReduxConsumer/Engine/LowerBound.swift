/// The first index in `0..<count` at which `isBelow` is false, for a predicate that holds on a
/// prefix of the indices and nowhere after it (a sorted list searched for a key): a binary search.
///
/// - Complexity: O(log `count`) calls of `isBelow`.
@inlinable
func lowerBound(count: Int, isBelow: (_ index: Int) -> Bool) -> Int {
    var low = 0
    var high = count
    while low < high {
        let middle = (low + high) / 2
        if isBelow(middle) {
            low = middle + 1
        } else {
            high = middle
        }
    }
    return low
}
