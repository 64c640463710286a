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
        if (event instanceof HeraldEvent.AuthenticationRequest request) {
            handler.onAuthenticationRequest(request, push);
        } else if (event instanceof HeraldEvent.SponsorMessage message) {
            handler.onSponsorMessage(message, push);
        } else if (event instanceof HeraldEvent.ChatChannelCreated created) {
            handler.onChatChannelCreated(created, push);
        } else if (event instanceof HeraldEvent.ChatMemberJoined joined) {
            handler.onChatMemberJoined(joined, push);
        } else if (event instanceof HeraldEvent.ChatMessage message) {
            handler.onChatMessage(message, push);
        } else if (event instanceof HeraldEvent.EmailReceived email) {
            handler.onEmailMessageReceived(email, push);
        } else if (event instanceof HeraldEvent.ValueChanged change) {
            handler.onValueChanged(change, push);
        } else if (event instanceof HeraldEvent.ChildrenUpdated update) {
            handler.onChildrenUpdated(update, push);
        } else if (event instanceof HeraldEvent.SubscriptionRevoked revocation) {
            handler.onSubscriptionRevoked(revocation, push);
        } else if (event instanceof HeraldEvent.Other other) {
            handler.onOtherEvent(other, push);
        }
    }
}
