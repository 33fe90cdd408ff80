package emulator

import (
	"encoding/base64"
	"fmt"
)

// idSeq hands out the numbers of a block reserved from the server's
// counter, so that one response's ids are consecutive whatever other
// requests run at the same time.
type idSeq struct {
	next, end int
}

// reserve takes the next n numbers of the counter.
func (s *Server) reserve(n int) *idSeq {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := &idSeq{next: s.seq + 1, end: s.seq + n}
	s.seq += n
	return q
}

// num returns the next number of the block. Running past the block is a
// programming error in a renderer.
func (q *idSeq) num() int {
	if q.next > q.end {
		panic("emulator: id block exhausted")
	}
	n := q.next
	q.next++
	return n
}

// id returns prefix followed by the next number, zero-padded to four
// digits: "msg_emu_0001".
func (q *idSeq) id(prefix string) string { return fmt.Sprintf("%s%04d", prefix, q.num()) }

// signature returns the opaque reasoning token for the reply: the
// scripted one, or one made from the id number n.
func signature(r *Reply, n int) string {
	if r.Signature != "" {
		return r.Signature
	}
	return base64.StdEncoding.EncodeToString(fmt.Appendf(nil, "emulator-signature-%04d", n))
}

// encryptedContent returns the Responses encrypted_content for the reply:
// the scripted signature, or a Fernet-looking token made from n.
func encryptedContent(r *Reply, n int) string {
	if r.Signature != "" {
		return r.Signature
	}
	return "gAAAAAB" + base64.URLEncoding.EncodeToString(fmt.Appendf(nil, "emulator-reasoning-%04d", n))
}
