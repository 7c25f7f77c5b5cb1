import ReduxConsumer

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(ucrt)
    import ucrt
#endif

/// Proves array elements unchanged without reading them as values: by identical bytes.
///
/// This is sound for a diff whatever the element type. Two values with the same bytes are the
/// same value: the same numbers, the same string storage, the same object references, the same
/// boxes. An array's bytes are a reference to its buffer, so two arrays with the same bytes share
/// one buffer, which holds the same elements (a shared buffer is never written). Objects that
/// values refer to are shared, not compared, which is what the differ does with one instance
/// anyway. Bytes that differ prove nothing (padding, two buffers holding equal strings), so the
/// caller then compares the element with `==` or by reflection.
enum IdenticalBytes {
    /// Runs of elements are compared in blocks of about this many bytes; the first block that
    /// differs is halved until its first differing element is found.
    private static let blockBytes = 65_536

    /// Whether two values have the same bytes, and so are the same value.
    ///
    /// - Complexity: O(`MemoryLayout<Value>.size`): a reference or a few words for arrays and
    ///   most states, whose large parts live in buffers they refer to.
    static func areIdentical<Value>(_ old: Value, _ new: Value) -> Bool {
        withUnsafeBytes(of: old) { oldBytes in
            withUnsafeBytes(of: new) { newBytes in
                // Both views are `MemoryLayout<Value>.size` bytes long.
                guard let oldBase = oldBytes.baseAddress, let newBase = newBytes.baseAddress else {
                    return true
                }
                return memcmp(oldBase, newBase, oldBytes.count) == 0
            }
        }
    }

    /// Whether two values of one dynamic type, seen as `Any`, have the same bytes: those of the
    /// values themselves, not of their boxes.
    ///
    /// - Returns: `false` when their dynamic types differ.
    /// - Complexity: O(size of the dynamic type), plus one dynamic cast.
    static func areIdentical(opening old: Any, _ new: Any) -> Bool {
        // Opened so that the bytes compared are the value's, not the `Any` container's.
        func areIdentical<Value>(_ old: Value) -> Bool {
            guard let new = new as? Value else {
                return false
            }
            return Self.areIdentical(old, new)
        }
        return areIdentical(old)
    }

    /// How many elements, walking from `old[oldStart]` and `new[newStart]` (forward, or backward
    /// when `backward` is set), have identical bytes, up to `length`.
    ///
    /// - Complexity: O(`length`) bytes compared, in blocks, stopping at the first difference;
    ///   O(`length` / 64 KB + log(64 KB)) calls to `memcmp`.
    static func runLength<Element>(
        _ old: [Element],
        from oldStart: Int,
        _ new: [Element],
        from newStart: Int,
        length: Int,
        backward: Bool
    ) -> Int {
        let stride = MemoryLayout<Element>.stride
        guard length > 0 else {
            return 0
        }
        // Invariant for the unsafe reads below: both runs lie inside their arrays.
        let oldLowest = backward ? oldStart - length + 1 : oldStart
        let newLowest = backward ? newStart - length + 1 : newStart
        precondition(
            oldLowest >= 0 && oldLowest + length <= old.count && newLowest >= 0 && newLowest + length <= new.count,
            "identical-bytes run out of bounds"
        )
        return old.withUnsafeBytes { oldBytes in
            new.withUnsafeBytes { newBytes in
                guard let oldBase = oldBytes.baseAddress, let newBase = newBytes.baseAddress else {
                    return 0
                }
                func same(at step: Int, count: Int) -> Bool {
                    // `step` elements in, `count` elements long, in the walking direction.
                    let oldIndex = backward ? oldStart - step - count + 1 : oldStart + step
                    let newIndex = backward ? newStart - step - count + 1 : newStart + step
                    return memcmp(oldBase + oldIndex * stride, newBase + newIndex * stride, count * stride) == 0
                }
                // Blocks of `blockBytes` until one differs, then halves of it down to one element.
                let block = max(1, blockBytes / stride)
                var step = 0
                while step < length {
                    let count = min(block, length - step)
                    guard !same(at: step, count: count) else {
                        step += count
                        continue
                    }
                    // The first difference is in `step..<end`.
                    var end = step + count
                    while end - step > 1 {
                        let half = (end - step) / 2
                        if same(at: step, count: half) {
                            step += half
                        } else {
                            end = step + half
                        }
                    }
                    return step
                }
                return step
            }
        }
    }
}
