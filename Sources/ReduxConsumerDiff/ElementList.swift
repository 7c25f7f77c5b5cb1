import ReduxConsumer

/// An array-like value opened for the differ and the dumper, so that neither boxes every element
/// the way a `Mirror` of a large collection does.
///
/// Elements are counted, read one at a time by position, and compared with another version in
/// runs (``commonEnds(with:)``), which lets the differ reflect only on the part that changed.
protocol ElementList {
    var count: Int { get }

    /// The elements at `range`, boxed, in order; `range` is within `0..<count`.
    func elements(in range: Range<Int>) -> [Any]

    /// The elements of `self` (old) and `other` (new) between their common start and their
    /// common end.
    ///
    /// Elements count as common when they certainly are: the same storage, the same bytes, or
    /// equal by `==`. The common start and end never overlap, and each stops at the first pair it
    /// cannot prove equal (elements that are equal only by reflection stay in the middle).
    ///
    /// - Parameters:
    ///   - other: The new version of the list.
    ///   - trimsEnd: Whether the common end is trimmed too, or only the common start.
    /// - Returns: `nil` when `other` is not a list of the same type.
    func differingMiddle(against other: any ElementList, trimsEnd: Bool) -> ListMiddle?
}

/// The value as an ``ElementList`` when it is an array or a ``ChunkedCollection``; `nil` for
/// anything else, including other collections, which are read through their mirror.
func elementList(of value: Any) -> (any ElementList)? {
    if let array = value as? any OpenableArray {
        return array.elements
    }
    if let chunked = value as? any ChunkedCollection {
        return elements(of: chunked)
    }
    return nil
}

private func elements<Chunked: ChunkedCollection>(of chunked: Chunked) -> any ElementList {
    // Opened so that `chunks` keeps its element type; through the existential it would be boxed.
    ChunkedElements(chunks: chunked.chunks, count: chunked.count)
}

/// Arrays, opened from `Any` so that their elements keep their static type.
private protocol OpenableArray {
    var elements: any ElementList { get }
}

extension Array: OpenableArray {
    fileprivate var elements: any ElementList {
        ChunkedElements(self)
    }
}
