package org.herald.client;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.Test;

/** The Sudo helpers, under the names of Sudo's Android SDK, with the rules Preferences filters with (the Swift kit's ConfigurationHelperTests). */
public class NotificationConfigurationTest {
    static final NotificationConfiguration.Rule SUDO_S1 = new NotificationConfiguration.Rule(NotificationConfiguration.Field.SUDO_ID, "s1");

    @Test
    public void anAddressSwitchedOffStaysOffWhateverItsSudoSays() {
        NotificationConfiguration configuration = new NotificationConfiguration()
            .initEmailNotifications()
            .setEmailNotificationsForAddressId("a1", false)
            .setEmailNotificationsForSudoId("s1", true);
        assertFalse(configuration.isEmailNotificationForAddressIdEnabled("a1"));
        assertTrue(configuration.isEmailNotificationForAddressIdEnabled("a2"));
        assertTrue(configuration.isEmailNotificationForSudoIdEnabled("s1"));
        // What Preferences decides for an email of that address in that Sudo: the address's
        // entry is the more specific, though the Sudo's was set after it.
        assertFalse(configuration.isEnabled("sudo-email", Map.of("sudoId", "s1", "emailAddressId", "a1")));
        configuration = configuration.setEmailNotificationsForAddressId("a1", false);
        assertFalse(configuration.isEnabled("sudo-email", Map.of("sudoId", "s1", "emailAddressId", "a1")));
        assertEquals("a rule's entry is replaced, not added again", 3, configuration.entries().size());
    }

    @Test
    public void anAddressSwitchedOnStaysOnWhenItsSudoIsSwitchedOffAfterIt() {
        NotificationConfiguration configuration = new NotificationConfiguration()
            .initEmailNotifications()
            .setEmailNotificationsForAddressId("a1", true)
            .setEmailNotificationsForSudoId("s1", false);
        assertTrue(configuration.isEnabled("sudo-email", Map.of("sudoId", "s1", "emailAddressId", "a1")));
        assertFalse("the Sudo's other addresses follow the Sudo", configuration.isEnabled("sudo-email", Map.of("sudoId", "s1", "emailAddressId", "a2")));
        assertTrue(configuration.isEmailNotificationForAddressIdEnabled("a1"));
        assertFalse(configuration.isEmailNotificationForSudoIdEnabled("s1"));
    }

    @Test
    public void theHelpersKeepOtherServicesEntries() {
        NotificationConfiguration configuration = new NotificationConfiguration(List.of(
                new NotificationConfiguration.Entry("chat", false, null), new NotificationConfiguration.Entry("chat", true, SUDO_S1)))
            .initEmailNotifications()
            .setEmailNotificationsForSudoId("s1", false);
        assertEquals(2, configuration.entries().stream().filter(e -> e.service().equals("chat")).count());
        assertFalse(configuration.isEnabled("chat", Map.of()));
        assertTrue(configuration.isEnabled("chat", Map.of("sudoId", "s1")));
        assertFalse(configuration.isEmailNotificationForSudoIdEnabled("s1"));
    }

    @Test
    public void initEmailNotificationsKeepsWhatIsThereAndAddsEmailOnce() {
        NotificationConfiguration configuration = new NotificationConfiguration(List.of(new NotificationConfiguration.Entry("sudo-email", false, SUDO_S1)))
            .initEmailNotifications()
            .initEmailNotifications();
        assertEquals(2, configuration.entries().size());
        assertNull(configuration.entries().get(0).rule());
        assertTrue(configuration.entries().get(0).enabled());
        assertFalse(configuration.isEmailNotificationForSudoIdEnabled("s1"));
        assertTrue(configuration.isEmailNotificationForSudoIdEnabled("s2"));
    }

    @Test
    public void aGatewayAnswerIsReadAndWrittenBackAsTheSameDocument() throws Exception {
        NotificationConfiguration configuration = NotificationConfiguration.fromReply(
            "{\"configuration\":{\"entries\":[{\"enabled\":false,\"rule\":{\"field\":\"emailAddressId\",\"value\":\"a1\"},\"service\":\"sudo-email\"}]}}");
        assertFalse(configuration.isEmailNotificationForAddressIdEnabled("a1"));
        // Email is opt-in: an address without an entry of its own or email's rule-less one is off.
        assertFalse(configuration.isEmailNotificationForAddressIdEnabled("a2"));
        assertTrue(configuration.initEmailNotifications().isEmailNotificationForAddressIdEnabled("a2"));
        assertEquals("{\"entries\":[{\"enabled\":false,\"rule\":{\"field\":\"emailAddressId\",\"value\":\"a1\"},\"service\":\"sudo-email\"}]}", configuration.requestBody());
    }

    @Test(expected = HeraldClientException.class)
    public void anAnswerThatIsNotAConfigurationIsAnError() throws Exception {
        NotificationConfiguration.fromReply("{\"configuration\":{\"entries\":[{\"service\":\"sudo-email\"}]}}");
    }
}
