/// `GET /`: every served layer on an interactive map drawn from the server's own vector tiles
/// (`/ogc/collections/{c}/tiles/WebMercatorQuad/{z}/{y}/{x}`), by a small viewer of GeoSieve's
/// own (no script from another host, no third-party code): drag to pan, wheel or the buttons to
/// zoom, a click to identify — an ArcGIS query of each visible layer at the clicked point, within
/// a few pixels, whose first feature's attributes are listed beside the map.
///
/// The viewer decodes Mapbox Vector Tiles itself (protocol buffer varints, the geometry
/// commands) and draws polygons, lines and points on a canvas. Two query parameters serve tests
/// and links: `view=LON,LAT,ZOOM` (the first view; the layers' extent otherwise) and
/// `click=LON,LAT` (a click there once the tiles are drawn). When it has drawn, the page sets
/// `data-drawn` on `<body>` to the share of the map's pixels that are not background, and after
/// an identify `data-identified` to the attributes found, as JSON.
enum MapPage {
    static func html(title: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(OGCHTML.escape(title)) – map</title>
        <style>
        html,body{margin:0;height:100%;font-family:system-ui,sans-serif;color:#222}
        #map{position:absolute;left:0;top:0;width:calc(100% - 20em);height:100%;cursor:grab;background:#eef3f7}
        #side{position:absolute;top:0;right:0;bottom:0;width:19em;padding:.5em;overflow:auto;border-left:1px solid #bbb;background:#fff}
        #zoom{position:absolute;left:.6em;top:.6em}#zoom button{display:block;width:2em;height:2em;margin-bottom:.2em;font-size:1.1em}
        table{border-collapse:collapse;width:100%;font-size:.85em}td{border:1px solid #ddd;padding:.15em .3em;vertical-align:top;word-break:break-word}
        .swatch{display:inline-block;width:.9em;height:.9em;margin-right:.3em;vertical-align:middle;border:1px solid #555}
        </style></head>
        <body>
        <canvas id="map"></canvas>
        <div id="zoom"><button id="in" title="Zoom in">+</button><button id="out" title="Zoom out">−</button></div>
        <div id="side"><h3>\(OGCHTML.escape(title))</h3><div id="layers"></div>
        <p><a href="/ogc?f=html">OGC API</a> · <a href="/arcgis/rest/services">ArcGIS REST</a></p>
        <h4>Identify</h4><div id="info">Click a feature.</div></div>
        <script>
        \(script)
        </script>
        </body></html>
        """
    }

    /// The viewer.
    static let script = #"""
        "use strict";
        const HALF = 20037508.342789244, TILE = 256, COLORS = ["#2b6cb0", "#c05621", "#2f855a", "#9b2c2c", "#6b46c1", "#b7791f", "#2c7a7b", "#97266d"];
        const canvas = document.getElementById("map"), ctx = canvas.getContext("2d");
        const params = new URLSearchParams(location.search);
        let layers = [], zoom = 2, cx = 0, cy = 0;  // the centre in world pixels at this zoom
        const tiles = new Map();  // "id/z/x/y" -> decoded layers, or "loading"
        let pending = 0;

        // --- Mapbox Vector Tiles -------------------------------------------------------------
        function reader(bytes) {
          let pos = 0;
          const r = {
            get done() { return pos >= bytes.length; },
            varint() { let v = 0, m = 1, b; do { b = bytes[pos++]; v += (b & 0x7f) * m; m *= 128; } while (b & 0x80); return v; },
            key() { const k = r.varint(); return [k >>> 3, k & 7]; },
            bytes() { const n = r.varint(); const s = bytes.subarray(pos, pos + n); pos += n; return s; },
            skip(type) { if (type === 0) r.varint(); else if (type === 1) pos += 8; else if (type === 2) pos += r.varint(); else if (type === 5) pos += 4; },
            double() { const v = new DataView(bytes.buffer, bytes.byteOffset + pos, 8).getFloat64(0, true); pos += 8; return v; },
            float() { const v = new DataView(bytes.buffer, bytes.byteOffset + pos, 4).getFloat32(0, true); pos += 4; return v; },
          };
          return r;
        }
        const text = new TextDecoder();
        function packed(bytes) { const r = reader(bytes), out = []; while (!r.done) out.push(r.varint()); return out; }
        function zigzag(n) { return (n % 2) ? -(n + 1) / 2 : n / 2; }
        function decodeValue(bytes) {
          const r = reader(bytes);
          while (!r.done) {
            const [f, t] = r.key();
            if (f === 1) return text.decode(r.bytes());
            if (f === 2) return r.float();
            if (f === 3) return r.double();
            if (f === 4 || f === 5) return r.varint();
            if (f === 6) return zigzag(r.varint());
            if (f === 7) return r.varint() !== 0;
            r.skip(t);
          }
          return null;
        }
        function decodeTile(buffer) {
          const out = [], r = reader(new Uint8Array(buffer));
          while (!r.done) {
            const [f, t] = r.key();
            if (f !== 3) { r.skip(t); continue; }
            const lr = reader(r.bytes()), layer = { name: "", extent: 4096, keys: [], values: [], features: [] };
            while (!lr.done) {
              const [lf, lt] = lr.key();
              if (lf === 1) layer.name = text.decode(lr.bytes());
              else if (lf === 3) layer.keys.push(text.decode(lr.bytes()));
              else if (lf === 4) layer.values.push(decodeValue(lr.bytes()));
              else if (lf === 5) layer.extent = lr.varint();
              else if (lf === 2) {
                const fr = reader(lr.bytes()), feature = { id: null, type: 0, tags: [], geometry: [] };
                while (!fr.done) {
                  const [ff, ft] = fr.key();
                  if (ff === 1) feature.id = fr.varint();
                  else if (ff === 2) feature.tags = packed(fr.bytes());
                  else if (ff === 3) feature.type = fr.varint();
                  else if (ff === 4) feature.geometry = packed(fr.bytes());
                  else fr.skip(ft);
                }
                layer.features.push(feature);
              } else lr.skip(lt);
            }
            for (const feature of layer.features) feature.parts = parts(feature.geometry);
            out.push(layer);
          }
          return out;
        }
        // The geometry commands as parts: arrays of [x, y] in tile units.
        function parts(commands) {
          const out = []; let x = 0, y = 0, part = null, i = 0;
          while (i < commands.length) {
            const id = commands[i] & 7, count = commands[i] >> 3; i++;
            if (id === 7) { if (part) part.closed = true; continue; }
            for (let k = 0; k < count; k++) {
              x += zigzag(commands[i++]); y += zigzag(commands[i++]);
              if (id === 1) { part = [[x, y]]; out.push(part); } else part.push([x, y]);
            }
          }
          return out;
        }

        // --- The view ------------------------------------------------------------------------
        function worldSize(z) { return TILE * Math.pow(2, z); }
        function toWorld(lon, lat, z) {
          const x = (lon + 180) / 360 * worldSize(z);
          const s = Math.sin(Math.max(-85.0511, Math.min(85.0511, lat)) * Math.PI / 180);
          const y = (0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI)) * worldSize(z);
          return [x, y];
        }
        function toLonLat(px, py, z) {
          const size = worldSize(z), lon = px / size * 360 - 180;
          const n = Math.PI - 2 * Math.PI * py / size, lat = 180 / Math.PI * Math.atan(Math.sinh(n));
          return [lon, lat];
        }
        function setView(lon, lat, z) { zoom = Math.max(0, Math.min(20, Math.round(z))); [cx, cy] = toWorld(lon, lat, zoom); }
        function resize() { canvas.width = canvas.clientWidth; canvas.height = canvas.clientHeight; }

        function draw() {
          ctx.fillStyle = "#eef3f7"; ctx.fillRect(0, 0, canvas.width, canvas.height);
          const left = cx - canvas.width / 2, top = cy - canvas.height / 2, n = Math.pow(2, zoom);
          const x0 = Math.floor(left / TILE), x1 = Math.floor((left + canvas.width) / TILE);
          const y0 = Math.max(0, Math.floor(top / TILE)), y1 = Math.min(n - 1, Math.floor((top + canvas.height) / TILE));
          layers.forEach((layer, li) => {
            if (!layer.visible) return;
            for (let tx = x0; tx <= x1; tx++) for (let ty = y0; ty <= y1; ty++) {
              const wx = ((tx % n) + n) % n, key = layer.id + "/" + zoom + "/" + wx + "/" + ty, tile = tiles.get(key);
              if (tile === undefined) { load(layer.id, zoom, wx, ty, key); continue; }
              if (tile === "loading") continue;
              for (const l of tile) drawLayer(l, COLORS[li % COLORS.length], tx * TILE - left, ty * TILE - top);
            }
          });
          if (pending === 0 && !reported) report();
        }
        function drawLayer(layer, color, ox, oy) {
          const s = TILE / layer.extent;
          // Only the tile's own square: its buffer is drawn by the neighbours.
          ctx.save(); ctx.beginPath(); ctx.rect(ox, oy, TILE, TILE); ctx.clip();
          ctx.strokeStyle = color; ctx.fillStyle = color; ctx.lineWidth = 1;
          for (const f of layer.features) {
            if (f.type === 1) {
              for (const p of f.parts) for (const [x, y] of p) { ctx.beginPath(); ctx.arc(ox + x * s, oy + y * s, 3, 0, 2 * Math.PI); ctx.fill(); }
              continue;
            }
            ctx.beginPath();
            for (const p of f.parts) { p.forEach(([x, y], i) => i ? ctx.lineTo(ox + x * s, oy + y * s) : ctx.moveTo(ox + x * s, oy + y * s)); if (f.type === 3) ctx.closePath(); }
            if (f.type === 3) { ctx.globalAlpha = 0.35; ctx.fill("evenodd"); ctx.globalAlpha = 1; }
            ctx.stroke();
          }
          ctx.restore();
        }
        function load(id, z, x, y, key) {
          tiles.set(key, "loading"); pending++;
          fetch("/ogc/collections/" + encodeURIComponent(id) + "/tiles/WebMercatorQuad/" + z + "/" + y + "/" + x)
            .then(r => r.ok ? r.arrayBuffer() : new ArrayBuffer(0))
            .then(b => tiles.set(key, decodeTile(b)), () => tiles.set(key, []))
            .finally(() => { pending--; draw(); });
        }
        // Once every first tile is drawn: the share of pixels that are not background (reading the
        // canvas back is not for every redraw), and the test click.
        let clicked = false, reported = false;
        function report() {
          reported = true;
          const data = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
          let drawn = 0;
          for (let i = 0; i < data.length; i += 4) if (data[i] !== 0xee || data[i + 1] !== 0xf3 || data[i + 2] !== 0xf7) drawn++;
          document.body.dataset.drawn = (drawn / (data.length / 4)).toFixed(4);
          const click = params.get("click");
          if (click && !clicked) { clicked = true; const [lon, lat] = click.split(",").map(Number); identify(lon, lat); }
        }

        // --- Identify --------------------------------------------------------------------------
        function identify(lon, lat) {
          const metres = 5 * 2 * HALF / worldSize(zoom) * Math.cos(lat * Math.PI / 180);
          const visible = layers.filter(l => l.visible);
          Promise.all(visible.map(layer => {
            const q = new URLSearchParams({ geometry: lon + "," + lat, geometryType: "esriGeometryPoint", inSR: "4326", spatialRel: "esriSpatialRelIntersects",
              distance: String(metres), units: "esriSRUnit_Meter", outFields: "*", returnGeometry: "false", resultRecordCount: "1", f: "json" });
            return fetch("/arcgis/rest/services/" + encodeURIComponent(layer.id) + "/FeatureServer/0/query?" + q).then(r => r.json())
              .then(j => ({ layer: layer.title, attributes: (j.features && j.features[0]) ? j.features[0].attributes : null }));
          })).then(found => {
            const hits = found.filter(f => f.attributes);
            const info = document.getElementById("info");
            info.textContent = "";
            if (!hits.length) info.textContent = "Nothing here.";
            for (const hit of hits) {
              const h = document.createElement("h5"); h.textContent = hit.layer; info.appendChild(h);
              const table = document.createElement("table");
              for (const [k, v] of Object.entries(hit.attributes)) {
                const tr = table.insertRow(); tr.insertCell().textContent = k; tr.insertCell().textContent = v === null ? "" : String(v);
              }
              info.appendChild(table);
            }
            document.body.dataset.identified = JSON.stringify(hits);
          });
        }

        // --- Interaction -----------------------------------------------------------------------
        let drag = null;
        canvas.addEventListener("mousedown", e => { drag = { x: e.clientX, y: e.clientY, cx, cy, moved: false }; });
        window.addEventListener("mousemove", e => {
          if (!drag) return;
          if (Math.abs(e.clientX - drag.x) + Math.abs(e.clientY - drag.y) > 3) drag.moved = true;
          cx = drag.cx - (e.clientX - drag.x); cy = drag.cy - (e.clientY - drag.y); draw();
        });
        window.addEventListener("mouseup", e => {
          if (drag && !drag.moved) {
            const r = canvas.getBoundingClientRect();
            const [lon, lat] = toLonLat(cx - canvas.width / 2 + (e.clientX - r.left), cy - canvas.height / 2 + (e.clientY - r.top), zoom);
            identify(lon, lat);
          }
          drag = null;
        });
        function zoomBy(d) { const [lon, lat] = toLonLat(cx, cy, zoom); setView(lon, lat, zoom + d); draw(); }
        canvas.addEventListener("wheel", e => { e.preventDefault(); zoomBy(e.deltaY < 0 ? 1 : -1); }, { passive: false });
        document.getElementById("in").onclick = () => zoomBy(1);
        document.getElementById("out").onclick = () => zoomBy(-1);
        window.addEventListener("resize", () => { resize(); draw(); });

        // --- Start -----------------------------------------------------------------------------
        fetch("/ogc/collections?f=json").then(r => r.json()).then(doc => {
          layers = doc.collections.map(c => ({ id: c.id, title: c.id, visible: true, bbox: c.extent && c.extent.spatial && c.extent.spatial.bbox && c.extent.spatial.bbox[0] }));
          const list = document.getElementById("layers");
          layers.forEach((layer, i) => {
            const label = document.createElement("label"), box = document.createElement("input"), swatch = document.createElement("span");
            box.type = "checkbox"; box.checked = true; box.onchange = () => { layer.visible = box.checked; draw(); };
            swatch.className = "swatch"; swatch.style.background = COLORS[i % COLORS.length];
            label.append(box, swatch, layer.title); list.append(label, document.createElement("br"));
          });
          resize();
          const view = params.get("view");
          if (view) { const [lon, lat, z] = view.split(",").map(Number); setView(lon, lat, z); }
          else {
            let w = 180, s = 85, e = -180, n = -85;
            for (const l of layers) if (l.bbox) { w = Math.min(w, l.bbox[0]); s = Math.min(s, l.bbox[1]); e = Math.max(e, l.bbox[2]); n = Math.max(n, l.bbox[3]); }
            if (w > e) { w = -180; e = 180; s = -60; n = 75; }
            let z = 0;
            while (z < 18) {
              const [a, b] = toWorld(w, n, z + 1), [c, d] = toWorld(e, s, z + 1);
              if (c - a > canvas.width || d - b > canvas.height) break;
              z++;
            }
            setView((w + e) / 2, (s + n) / 2, z);
            const [a, b] = toWorld(w, n, zoom), [c, d] = toWorld(e, s, zoom); cx = (a + c) / 2; cy = (b + d) / 2;
          }
          draw();
        });
        """#
}
