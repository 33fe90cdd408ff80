// Package streamcheck checks a sequence of canonical stream events against
// the invariants every adapter's stream must keep (seed 000 §5.2 and §5.3):
//
//	start-first       message.start comes first, once (§5.2.1)
//	tool-lifecycle    each tool call has exactly one tool.use_start, then
//	                  zero or more tool.use_input_delta, then exactly one
//	                  tool.use_end, all at the start's index (§5.2.2)
//	tool-final-input  tool.use_end.final_input is a JSON object (§5.2.3)
//	complete-last     message.complete ends the stream, once, and carries
//	                  a response (§5.2.4)
//	final-content     message.complete's final content is what the deltas
//	                  assembled: the text of each text block, each thinking
//	                  block's text and a signature if one streamed (the
//	                  final one may restate it), each tool's id, name and
//	                  final input (§5.2.4)
//	index-order       content_block_index never decreases (§5.2.5)
//	block-kind        one content_block_index holds one kind of block
//	message-id        every event carries the message.start's message_id
//	cancelled         a message.complete with stop_reason cancelled has
//	                  ended every started tool and nothing follows it; a
//	                  stream its consumer cancelled ends that way (§5.3)
//
// Check is the whole API; options tune it and are built only by this
// package's constructors. Third parties run it over their own adapter's
// events:
//
//	var events []canonical.StreamEvent
//	for ev, err := range adapter.Stream(ctx, req) { ... events = append(events, ev) }
//	for _, f := range streamcheck.Check(events) {
//		t.Error(f)
//	}
package streamcheck
