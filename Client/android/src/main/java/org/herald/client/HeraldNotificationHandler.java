package org.herald.client;

import java.util.Map;

/**
 * What an app does with each kind of push, one method per notification type as Sudo's SDK
 * shapes its handlers ({@code SudoEmailNotificationHandler.onEmailMessageReceived}). Every
 * method does nothing unless overridden; {@link HeraldPushRouter} calls the one that fits.
 */
public interface HeraldNotificationHandler {
    default void onAuthenticationRequest(HeraldEvent.AuthenticationRequest request, HeraldNotification push) {}

    default void onSponsorMessage(HeraldEvent.SponsorMessage message, HeraldNotification push) {}

    default void onChatChannelCreated(HeraldEvent.ChatChannelCreated event, HeraldNotification push) {}

    default void onChatMemberJoined(HeraldEvent.ChatMemberJoined event, HeraldNotification push) {}

    default void onChatMessage(HeraldEvent.ChatMessage message, HeraldNotification push) {}

    default void onEmailMessageReceived(HeraldEvent.EmailReceived email, HeraldNotification push) {}

    default void onValueChanged(HeraldEvent.ValueChanged change, HeraldNotification push) {}

    default void onChildrenUpdated(HeraldEvent.ChildrenUpdated update, HeraldNotification push) {}

    default void onSubscriptionRevoked(HeraldEvent.SubscriptionRevoked revocation, HeraldNotification push) {}

    /** An app's own kind: read {@code push.data()}. */
    default void onOtherEvent(HeraldEvent.Other event, HeraldNotification push) {}

    /**
     * A Herald push that could not be opened (wrong key, tampered, a later format). Show a
     * neutral notification and log {@code error.reason()}; the message holds no secret.
     */
    default void onFailure(HeraldClientException error, Map<String, String> data) {}
}
