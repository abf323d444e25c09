import OnAirRTP
import OnAirWire

/// Per-viewer layers on the engine's loop: keyframe requests per layer, each viewer's layer
/// choice from its estimate, and the padding of its probes.
extension MediaPlane {
    /// PLIs (RFC 4585 §6.3.1) for the layers that want a keyframe, coalesced per layer.
    /// A replica room passes them to the publisher's worker, which coalesces them with its own.
    package func requestKeyframes(_ room: Room, now: MonoTime) {
        guard room.needsKeyframe else { return }
        room.needsKeyframe = false
        guard let stream = room.stream else { return }
        for layer in stream.videoLayers.indices where stream.videoLayers[layer].keyframeWanted {
            let prompt = stream.videoLayers[layer].keyframePrompt
            stream.videoLayers[layer].keyframeWanted = false
            stream.videoLayers[layer].keyframePrompt = false
            if let feed = room.upstream {
                feed.requestKeyframe(layer: layer, prompt: prompt)
            } else if let publisher = room.publisher, stream.videoLayers[layer].keyframeRequests.request(now: now, prompt: prompt) {
                sendKeyframeRequest(publisher, layer: layer)
            }
        }
    }

    /// Requests held back by the coalescing that may go out now.
    package func pollKeyframeRequests(_ room: Room, now: MonoTime) {
        guard let publisher = room.publisher else { return }
        for layer in publisher.stream.videoLayers.indices where publisher.stream.videoLayers[layer].keyframeRequests.poll(now: now) {
            sendKeyframeRequest(publisher, layer: layer)
        }
    }

    package func sendKeyframeRequest(_ publisher: PublisherSession, layer: Int) {
        sendRTCP([.pictureLossIndication(PictureLossIndication(senderSSRC: rtcpSenderSSRC,
                                                               mediaSSRC: publisher.stream.videoLayers[layer].ssrc))], to: publisher)
    }

    /// Re-decides every connected viewer's layer (``LayerSelector``) and asks for a keyframe
    /// of each layer a viewer waits for.
    package func selectLayers(_ room: Room, now: MonoTime) {
        guard let stream = room.stream, !stream.videoLayers.isEmpty else { return }
        fillLayerCandidates(of: stream, now: now)
        for viewer in room.viewers where viewer.connectedAt != nil && viewer.video != nil {
            selectLayer(for: viewer, in: room, stream: stream, now: now)
        }
        requestKeyframes(room, now: now)
    }

    /// One viewer's layer at once (it just connected, or changed its cap), and the keyframe
    /// it needs: its first frame waits for nothing else.
    package func selectLayerNow(for viewer: ViewerSession, in room: Room, now: MonoTime) {
        guard let stream = room.stream, !stream.videoLayers.isEmpty, viewer.video != nil else { return }
        fillLayerCandidates(of: stream, now: now)
        selectLayer(for: viewer, in: room, stream: stream, now: now)
        requestKeyframes(room, now: now)
    }

    private func fillLayerCandidates(of stream: StreamSource, now: MonoTime) {
        layerCandidates.removeAll(keepingCapacity: true)
        for index in stream.videoLayers.indices {
            layerCandidates.append(stream.videoLayers[index].candidate(index: index, now: now))
        }
    }

    package func selectLayer(for viewer: ViewerSession, in room: Room, stream: StreamSource, now: MonoTime) {
        let downSwitches = viewer.selector.downSwitches
        let before = (target: viewer.selector.target, probe: viewer.selector.probe.active?.rate,
                      verdicts: viewer.selector.probe.verdicts)
        let target = viewer.selector.update(layers: layerCandidates, audioBitrate: Int(stream.audioBitrate),
                                            estimator: &viewer.estimator, canProbe: viewer.rtx != nil,
                                            sendingRate: viewer.videoPayloadRate + Int(stream.audioBitrate), now: now)
        viewer.video?.target = target
        viewer.fitRetransmissionBudget(now: now)
        if viewer.keyframeRequestHeld, !viewer.losesHeavily(now: now) {
            // The link carries again (or video paused: a resume brings its own keyframe).
            viewer.keyframeRequestHeld = false
            if let target, viewer.video?.isSwitching == false { room.wantKeyframe(layer: target, prompt: true) }
        }
        if before.probe == nil, viewer.selector.probe.active != nil {
            viewer.probeBaseSequence = viewer.video?.rewriter.viewerRange?.last
        }
        if viewer.selector.downSwitches != downSwitches { viewer.video?.leaveCurrentLayer() }
        if before.target != target || before.probe != viewer.selector.probe.active?.rate
            || before.verdicts != viewer.selector.probe.verdicts {
            logLayerDecision(viewer, stream: stream, previousTarget: before.target, probing: before.probe)
        }
        // A TCP viewer waiting for room in its queue asks once there is room (``Room/transportHasRoom(for:)``).
        if let target, viewer.video?.isSwitching == true, !viewer.awaitsTransportRoom {
            room.wantKeyframe(layer: target, prompt: true)
        }
    }

    /// A viewer's layer or probe changed: what the lab's runs are read against.
    private func logLayerDecision(_ viewer: ViewerSession, stream: StreamSource, previousTarget: Int?, probing: Int?) {
        func name(_ layer: Int?) -> String { layer.map { stream.videoLayers[$0].rid ?? "\($0)" } ?? "paused" }
        let probe = viewer.selector.probe
        let event = previousTarget != viewer.selector.target
            ? "switch \(name(previousTarget)) -> \(name(viewer.selector.target))"
                + (viewer.selector.pauseReason.map { " (\($0.rawValue))" } ?? "")
                + (viewer.selector.target == nil ? viewer.selector.pauseEvidence.map { " deep \($0.deep) by NACKs \($0.prompt)" } ?? "" : "")
            : probe.active.map { "probe at \($0.rate / 1000) kbit/s" }
            ?? "probe at \((probing ?? 0) / 1000) kbit/s ended (ok \(probe.succeeded), failed \(probe.failed), inconclusive \(probe.inconclusive)"
            + (probe.lastFailure.map { ", last failure: \($0)" } ?? "")
            + (probe.lastQueueDelay.map { ", queue \(Int($0.seconds * 1000)) ms" } ?? "") + ")"
        logger.debug("layer selection", metadata: [
            "session": "\(viewer.id)", "event": "\(event)", "estimate_kbps": "\(viewer.estimator.estimate / 1000)",
            "reason": "\(viewer.estimator.lastChangeReason)", "sending_kbps": "\(viewer.videoPayloadRate / 1000)",
            "reported_loss": "\(viewer.estimator.lossFraction)",
            "nack_loss": "\(viewer.estimator.nackLoss.last.map { "\($0.fraction)" } ?? "-")",
            "nack_loss_3": "\(viewer.estimator.nackLoss.last.flatMap { viewer.estimator.nackLoss.sustainedLoss(now: $0.at) }.map { "\($0)" } ?? "-")",
        ])
    }

    /// Padding-only RTX packets (RFC 4588 §4, RFC 3550 §5.1) to each probing viewer, enough to
    /// bring what it receives up to the probe's rate over this tick.
    package func sendProbePadding(_ room: Room, now: MonoTime, interval: Duration) {
        guard let stream = room.stream else { return }
        for viewer in room.viewers {
            if viewer.selector.probe.wantsQueueMarker(now: now) { sendQueueMarker(to: viewer, stream: stream, now: now) }
            guard let rate = viewer.selector.probe.paddingTarget(now: now), let rtx = viewer.rtx, let video = viewer.video,
                  let output = ViewerOutput(viewer, sender: sender, now: now), !output.backlogged else { continue }
            let media = (video.current.map { stream.videoLayers[$0].smoothedBitrate } ?? 0) + stream.audioBitrate
            var budget = (Double(rate) - media) * interval.seconds / 8
            let timestamp = video.rewriter.lastTimestamps?.viewer ?? 0
            var packets = 0
            while budget > 0 && packets < Self.maximumPaddingPacketsPerTick {
                let padding = OutgoingRTP(marker: false, payloadType: rtx.payloadType, sequence: viewer.rtxSequence, timestamp: timestamp,
                                          ssrc: rtx.ssrc, payload: UnsafeRawBufferPointer(start: nil, count: 0), padding: 255)
                guard let sent = room.emit(padding, via: output) else { break }
                viewer.rtxSequence &+= 1
                viewer.paddingPackets &+= 1
                viewer.paddingBytes &+= UInt64(sent)
                budget -= Double(sent)
                packets += 1
            }
        }
    }

    /// 255-octet padding packets: 100 per 20 ms tick is about 10 Mbit/s.
    package static let maximumPaddingPacketsPerTick = 100
}
