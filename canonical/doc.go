// Package canonical is metis's data contract: the provider-neutral message
// format of seed 001 and the request, response, stream-event, error and
// capability shapes of seed 000 §3. Adapters translate it to and from each
// provider's wire format; sessions persist it; the harness checks it.
//
// The package does no I/O and names no provider.
//
// # Opaque provider tokens
//
// Some providers return tokens that must be sent back to them verbatim and
// to nobody else. Their homes:
//
//   - ThinkingBlock.Signature holds the signature of the provider that
//     produced the message (MessageMetadata.Provider): Anthropic's thinking
//     signature, the encrypted_content of an OpenAI Responses reasoning
//     item, or a Gemini thought part's thoughtSignature.
//   - MessageMetadata.ProviderRaw[provider] holds everything else, as JSON
//     the adapter of that provider defines (for example Gemini
//     thoughtSignatures on function-call and text parts, keyed by content
//     block index, or an OpenAI reasoning item's id).
//
// Before a message is sent to a provider other than the one that produced
// it, signatures are stripped and other providers' ProviderRaw entries are
// ignored.
package canonical
