package secrets

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
)

// An AWS event stream (application/vnd.amazon.eventstream) is a sequence
// of frames: a 12-byte prelude (total length, headers length, CRC-32 of
// the first 8 bytes), the headers, the payload, and a CRC-32 of all that
// precedes it.
const (
	preludeLen = 12
	frameMin   = preludeLen + 4
)

// eventStream scrubs the payload of every frame of an AWS event stream
// (as text: JSON, and the base64-encoded JSON of Bedrock's "bytes"
// member) and rebuilds the frames whose payload changed. ok is false when
// b is not an event stream: a frame's lengths or checksums do not hold.
func (s *Scrubber) eventStream(b []byte, depth int) (out []byte, ok bool) {
	type frame struct{ head, payload []byte }
	var frames []frame
	for rest := b; len(rest) > 0; {
		if len(rest) < frameMin {
			return nil, false
		}
		total := binary.BigEndian.Uint32(rest[0:4])
		hlen := binary.BigEndian.Uint32(rest[4:8])
		if total < frameMin || uint64(total) > uint64(len(rest)) || uint64(hlen) > uint64(total-frameMin) ||
			crc32.ChecksumIEEE(rest[:8]) != binary.BigEndian.Uint32(rest[8:12]) ||
			crc32.ChecksumIEEE(rest[:total-4]) != binary.BigEndian.Uint32(rest[total-4:total]) {
			return nil, false
		}
		frames = append(frames, frame{head: rest[preludeLen : preludeLen+hlen], payload: rest[preludeLen+hlen : total-4]})
		rest = rest[total:]
	}
	var buf bytes.Buffer
	changed := false
	for _, f := range frames {
		p := s.Replace(s.text(f.payload, depth+1))
		if !bytes.Equal(p, f.payload) {
			changed = true
		}
		buf.Write(eventFrame(f.head, p))
	}
	if !changed {
		return b, true
	}
	return buf.Bytes(), true
}

// eventFrame encodes one event-stream frame.
func eventFrame(head, payload []byte) []byte {
	total := frameMin + len(head) + len(payload)
	f := make([]byte, preludeLen, total)
	binary.BigEndian.PutUint32(f[0:4], uint32(total))
	binary.BigEndian.PutUint32(f[4:8], uint32(len(head)))
	binary.BigEndian.PutUint32(f[8:12], crc32.ChecksumIEEE(f[:8]))
	f = append(append(f, head...), payload...)
	return binary.BigEndian.AppendUint32(f, crc32.ChecksumIEEE(f))
}
