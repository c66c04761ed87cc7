extension CoordinateLayout {
    /// The ordinates both layouts carry.
    public func intersection(_ other: CoordinateLayout) -> CoordinateLayout {
        CoordinateLayout(hasZ: hasZ && other.hasZ, hasM: hasM && other.hasM)
    }
}

extension CoordinateBuffer {
    /// The same positions in `layout`, which must carry no ordinate this buffer lacks: z, m or
    /// both dropped. The buffer itself when `layout` is its own.
    public func keeping(_ layout: CoordinateLayout) -> CoordinateBuffer {
        precondition(layout.intersection(self.layout) == layout, "a layout can only drop ordinates")
        guard layout != self.layout else { return self }
        let stride = self.layout.stride
        let zOffset = layout.hasZ ? self.layout.zOffset : nil
        let mOffset = layout.hasM ? self.layout.mOffset : nil
        var kept: [Double] = []
        kept.reserveCapacity(count * layout.stride)
        var base = 0
        while base < values.count {
            kept.append(values[base])
            kept.append(values[base + 1])
            if let zOffset { kept.append(values[base + zOffset]) }
            if let mOffset { kept.append(values[base + mOffset]) }
            base += stride
        }
        return CoordinateBuffer(values: kept, layout: layout)
    }
}

extension Geometry {
    /// The geometry with only the ordinates `layout` allows: its z values dropped unless
    /// `layout.hasZ`, its m values unless `layout.hasM` (none added). What the ArcGIS REST
    /// `returnZ=false` and `returnM=false`, their defaults, ask of a layer that has them. The
    /// geometry itself when it carries nothing `layout` drops.
    public func keepingOrdinates(_ layout: CoordinateLayout) -> Geometry {
        let kept = self.layout.intersection(layout)
        guard kept != self.layout else { return self }
        switch self {
        case .point(let point):
            return .point(Point(x: point.x, y: point.y, z: kept.hasZ ? point.z : nil, m: kept.hasM ? point.m : nil))
        case .multipoint(let multipoint):
            return .multipoint(Multipoint(trusted: multipoint.coordinates.keeping(kept), envelope: multipoint.envelope))
        case .polyline(let polyline):
            return .polyline(
                Polyline(trusted: polyline.coordinates.keeping(kept), pathOffsets: polyline.pathOffsets, envelope: polyline.envelope))
        case .polygon(let polygon):
            return .polygon(
                Polygon(
                    trusted: polygon.coordinates.keeping(kept), ringOffsets: polygon.ringOffsets, partOffsets: polygon.partOffsets,
                    envelope: polygon.envelope))
        case .envelope:
            return self
        case .collection(let collection):
            return .collection(GeometryCollection(collection.geometries.map { $0.keepingOrdinates(layout) }))
        }
    }
}
