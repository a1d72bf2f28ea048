// The nested worker of src/web/read_ahead.rs: keeps the Blob it is given
// and answers {id, start, end} with that slice's bytes, transferred (no
// copy). Streaming the Blob instead cost as much CPU in all (the browser
// reads it more cheaply, but gathering the stream's pieces into slices here
// costs the difference), so the slices are read as they are asked for.
let blob = null;

onmessage = (e) => {
  const m = e.data;
  if (m.blob) {
    blob = m.blob;
    return;
  }
  blob
    .slice(m.start, m.end)
    .arrayBuffer()
    .then(
      (b) => postMessage({ id: m.id, b }, [b]),
      (x) => postMessage({ id: m.id, error: String(x) }),
    );
};
