package driver

import (
	"fmt"
	"strings"

	"github.com/metis-llm/metis/canonical"
)

// CheckCapabilities refuses, before any HTTP call, a request that needs a
// capability caps does not declare (000 §3.4, §10.1.5), checking in this
// order:
//
//   - tools: req.Tools is not empty (supports_tools);
//   - structured output: req.OutputSchema is set
//     (supports_structured_output);
//   - streaming: stream is true (supports_streaming);
//   - a system prompt: req.SystemPrompt, or a SYSTEM message with content
//     (supports_system_prompt);
//   - images: an image block in a message (supports_images), or one whose
//     media type is not among accepted_image_media_types. ImagesProjected
//     lets them through.
//
// A thinking request is never refused: canonical.ThinkingConfig is a
// request the adapter ignores where the model cannot reason. Rules that
// belong to one provider (Anthropic refusing output_schema with thinking)
// stay in its adapter.
//
// The error is a *canonical.AdapterError of class invalid_request, Code
// unsupported_content, Provider provider, whose message names the model
// and the capability field that is missing.
func CheckCapabilities(provider string, req *canonical.Request, caps canonical.Capabilities, stream bool, opts ...CapabilityOption) error {
	var o capabilityCheck
	for _, opt := range opts {
		opt(&o)
	}
	refuse := func(what, field string) error {
		return unsupported(provider, "model %s does not support %s: its capabilities do not declare %s (a models.yaml capabilities block can)", req.Model, what, field)
	}
	if len(req.Tools) > 0 && !caps.SupportsTools {
		return refuse("tools", "supports_tools")
	}
	if len(req.OutputSchema) > 0 && !caps.SupportsStructuredOutput {
		return refuse("structured output", "supports_structured_output")
	}
	if stream && !caps.SupportsStreaming {
		return refuse("streaming", "supports_streaming")
	}
	if !caps.SupportsSystemPrompt && hasSystemPrompt(req) {
		return refuse("a system prompt", "supports_system_prompt")
	}
	if o.imagesProjected {
		return nil
	}
	for _, m := range req.Messages {
		for _, b := range m.Content {
			img, ok := b.(canonical.ImageBlock)
			if !ok {
				continue
			}
			if !caps.SupportsImages {
				return refuse(fmt.Sprintf("image input (message %s)", m.ID), "supports_images")
			}
			if img.MediaType != "" && !caps.AcceptsImageType(img.MediaType) {
				return unsupported(provider, "model %s does not accept %s images (message %s): accepted_image_media_types is %s",
					req.Model, img.MediaType, m.ID, strings.Join(caps.AcceptedImageMediaTypes, ", "))
			}
		}
	}
	return nil
}

// CapabilityOption adjusts what CheckCapabilities refuses.
type CapabilityOption func(*capabilityCheck)

type capabilityCheck struct {
	imagesProjected bool
}

// ImagesProjected makes CheckCapabilities let through the image blocks
// the model cannot take, for an adapter whose request mapping drops them
// whole with the lossy-projection WARN (Call.Drop) instead: 000 §10.1.5
// allows either.
func ImagesProjected() CapabilityOption {
	return func(c *capabilityCheck) { c.imagesProjected = true }
}

// hasSystemPrompt reports whether req carries system text.
func hasSystemPrompt(req *canonical.Request) bool {
	if req.SystemPrompt != "" {
		return true
	}
	for _, m := range req.Messages {
		if m.Role == canonical.RoleSystem && len(m.Content) > 0 {
			return true
		}
	}
	return false
}

func unsupported(provider, format string, args ...any) *canonical.AdapterError {
	ae := canonical.NewError(canonical.ErrInvalidRequest, canonical.CodeUnsupportedContent, format, args...)
	ae.Provider = provider
	return ae
}
