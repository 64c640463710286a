package org.herald.client;

import java.util.Map;

/**
 * The whole of a messaging service's work for Herald's pushes: recognise, open, and hand the
 * typed event to the handler's method for it. Pushes of other senders are left to the caller
 * ({@link #route} returns false), so the app's other code still gets them.
 */
public final class HeraldPushRouter {
    private final HeraldNotificationDecoder decoder;
    private final HeraldNotificationHandler handler;

    public HeraldPushRouter(HeraldKeyring keyring, HeraldNotificationHandler handler) {
        this.decoder = new HeraldNotificationDecoder(keyring);
        this.handler = handler;
    }

    /**
     * Routes an FCM data map ({@code RemoteMessage.getData()}). Returns false, calling nothing,
     * when the push is not Herald's; true when it was, opened or not.
     */
    public boolean route(Map<String, String> data) {
        if (!HeraldData.isHerald(data)) return false;
        HeraldNotification push;
        try {
            push = decoder.decode(data);
        } catch (HeraldClientException error) {
            handler.onFailure(error, data);
            return true;
        }
        dispatch(push);
        return true;
    }

    /** Routes a Push Kit data string ({@code RemoteMessage.getData()}), as {@link #route(Map)}. */
    public boolean routePushKit(String data) {
        Map<String, String> map = HeraldData.fromPushKitData(data);
        return map != null && route(map);
    }

    private void dispatch(HeraldNotification push) {
        HeraldEvent event = push.event();
        if (event instanceof HeraldEvent.AuthenticationRequest) {
            handler.onAuthenticationRequest((HeraldEvent.AuthenticationRequest) event, push);
        } else if (event instanceof HeraldEvent.SponsorMessage) {
            handler.onSponsorMessage((HeraldEvent.SponsorMessage) event, push);
        } else if (event instanceof HeraldEvent.ChatChannelCreated) {
            handler.onChatChannelCreated((HeraldEvent.ChatChannelCreated) event, push);
        } else if (event instanceof HeraldEvent.ChatMemberJoined) {
            handler.onChatMemberJoined((HeraldEvent.ChatMemberJoined) event, push);
        } else if (event instanceof HeraldEvent.ChatMessage) {
            handler.onChatMessage((HeraldEvent.ChatMessage) event, push);
        } else if (event instanceof HeraldEvent.EmailReceived) {
            handler.onEmailMessageReceived((HeraldEvent.EmailReceived) event, push);
        } else if (event instanceof HeraldEvent.ValueChanged) {
            handler.onValueChanged((HeraldEvent.ValueChanged) event, push);
        } else if (event instanceof HeraldEvent.ChildrenUpdated) {
            handler.onChildrenUpdated((HeraldEvent.ChildrenUpdated) event, push);
        } else if (event instanceof HeraldEvent.SubscriptionRevoked) {
            handler.onSubscriptionRevoked((HeraldEvent.SubscriptionRevoked) event, push);
        } else {
            handler.onOtherEvent((HeraldEvent.Other) event, push);
        }
    }
}
